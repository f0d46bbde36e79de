"""Scacco's C-level core (Cython): bitboards, position, move generation, evaluation, search."""
