"""Making the neural evaluation: self-play training data (datagen) and the trainer
(nnue_train, PyTorch: the train extra).  Built on the engine's core only."""
