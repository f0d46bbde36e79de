# The Python-facing network: NnueNetwork holds a net's integer weights in C arrays, checked
# here a second time (engine/nnue.py parses and checks the file).  Boards and searchers point
# at it and keep a reference, so it lives as long as they use it; it never changes once made.


cdef class NnueNetwork:
    """The integer weights of one network (see nnue.pxi), read-only once made."""
    cdef NnueNet net

    def __cinit__(self, int hidden, int qa, int qb, int scale, feature_weights, feature_bias,
                  output_weights, output_bias):
        """output_bias: one int, or one per output bucket (the output weights then hold
        one [2][hidden] layer per bucket)."""
        import sys
        from array import array
        cdef int buckets, i
        biases = [output_bias] if isinstance(output_bias, int) else list(output_bias)
        buckets = len(biases)
        if not 1 <= hidden <= NNUE_MAX_HIDDEN:
            raise ValueError(f"hidden size must be in 1..{NNUE_MAX_HIDDEN}, not {hidden}")
        if not 1 <= buckets <= NNUE_MAX_BUCKETS:
            raise ValueError(f"output buckets must be in 1..{NNUE_MAX_BUCKETS}, not {buckets}")
        if not 1 <= qa <= 255 or not 1 <= qb <= 32767 or not 1 <= scale <= 100000:
            raise ValueError(f"quantisation constants out of range: QA {qa}, QB {qb}, scale {scale}")
        for bias in biases:
            if not isinstance(bias, int) or not -2 ** 31 <= bias < 2 ** 31:
                raise ValueError(f"output bias {bias} does not fit 32 bits")
        arrays = []
        for name, data, count in (("feature weights", feature_weights, NNUE_INPUTS * hidden),
                                  ("feature bias", feature_bias, hidden),
                                  ("output weights", output_weights, buckets * 2 * hidden)):
            values = array("h")
            if len(data) != 2 * count:
                raise ValueError(f"{name}: {len(data)} bytes where {2 * count} were expected")
            values.frombytes(bytes(data))
            if sys.byteorder != "little":
                values.byteswap()
            arrays.append(values)
        if min(arrays[2]) < -128 or max(arrays[2]) > 127:
            raise ValueError("output weights must lie in -128..127")
        self.net.hidden = hidden
        self.net.qa = qa
        self.net.qb = qb
        self.net.scale = scale
        self.net.buckets = buckets
        self.net.bucket_divisor = 32 // buckets
        for i in range(NNUE_MAX_BUCKETS):
            self.net.output_bias[i] = <int32_t>biases[i] if i < buckets else 0
        self.net.feature_weights = <int16_t*>malloc(NNUE_INPUTS * hidden * sizeof(int16_t))
        self.net.feature_bias = <int16_t*>malloc(hidden * sizeof(int16_t))
        self.net.output_weights = <int16_t*>malloc(buckets * 2 * hidden * sizeof(int16_t))
        if (self.net.feature_weights == NULL or self.net.feature_bias == NULL
                or self.net.output_weights == NULL):
            raise MemoryError()
        _copy_int16(self.net.feature_weights, arrays[0])
        _copy_int16(self.net.feature_bias, arrays[1])
        _copy_int16(self.net.output_weights, arrays[2])

    def __dealloc__(self):
        free(self.net.feature_weights)
        free(self.net.feature_bias)
        free(self.net.output_weights)

    @property
    def hidden(self):
        return self.net.hidden

    @property
    def buckets(self):
        """The number of output buckets (by piece count; 1: a single output layer)."""
        return self.net.buckets

    @property
    def constants(self):
        """(QA, QB, scale)."""
        return self.net.qa, self.net.qb, self.net.scale


cdef void _copy_int16(int16_t* dst, values):
    cdef const int16_t[:] view = values
    if view.shape[0]:
        memcpy(dst, &view[0], view.shape[0] * sizeof(int16_t))

