# The Python-facing network: NnueNetwork holds a net's integer weights in C arrays, checked
# here a second time (engine/nnue.py parses and checks the file).  Boards and searchers point
# at it and keep a reference, so it lives as long as they use it; it never changes once made.


cdef class NnueNetwork:
    """The integer weights of one network (see nnue.pxi), read-only once made."""
    cdef NnueNet net

    def __cinit__(self, int hidden, int qa, int qb, int scale, feature_weights, feature_bias,
                  output_weights, long output_bias):
        import sys
        from array import array
        if not 1 <= hidden <= NNUE_MAX_HIDDEN:
            raise ValueError(f"hidden size must be in 1..{NNUE_MAX_HIDDEN}, not {hidden}")
        if not 1 <= qa <= 255 or not 1 <= qb <= 32767 or not 1 <= scale <= 100000:
            raise ValueError(f"quantisation constants out of range: QA {qa}, QB {qb}, scale {scale}")
        if not -2 ** 31 <= output_bias < 2 ** 31:
            raise ValueError(f"output bias {output_bias} does not fit 32 bits")
        arrays = []
        for name, data, count in (("feature weights", feature_weights, NNUE_INPUTS * hidden),
                                  ("feature bias", feature_bias, hidden),
                                  ("output weights", output_weights, 2 * hidden)):
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
        self.net.output_bias = <int32_t>output_bias
        self.net.feature_weights = <int16_t*>malloc(NNUE_INPUTS * hidden * sizeof(int16_t))
        self.net.feature_bias = <int16_t*>malloc(hidden * sizeof(int16_t))
        self.net.output_weights = <int16_t*>malloc(2 * hidden * sizeof(int16_t))
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
    def constants(self):
        """(QA, QB, scale)."""
        return self.net.qa, self.net.qb, self.net.scale


cdef void _copy_int16(int16_t* dst, values):
    cdef const int16_t[:] view = values
    if view.shape[0]:
        memcpy(dst, &view[0], view.shape[0] * sizeof(int16_t))

