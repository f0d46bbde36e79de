# The Python-facing side of the tablebase reader: SyzygyTables finds the table files in a list
# of folders, maps them read-only, parses them all at once (so probes need no lock), keeps a
# list of the files it refused and why, and probes CoreBoards.  The search gets the C struct
# through SearchCore.set_tablebase.

# Names are kept out of the module (tests/test_package.py checks the stub names everything):
# the modules are imported where used and the messages come from a C-level function.

cdef str tb_error_message(int err, str kind):
    if err == TB_ERR_SIZE:
        return ("the size is not that of a Syzygy table (16 more than a multiple of 64): "
                "cut short or not a table")
    if err == TB_ERR_MAGIC:
        return f"wrong magic number: not a Syzygy {kind} table"
    if err == TB_ERR_FLAGS:
        return "the table's pawn flag does not match the material of its name"
    if err == TB_ERR_PIECES:
        return "the pieces stored in the table do not match its name"
    if err == TB_ERR_TRUNCATED:
        return "truncated: part of the table lies beyond the end of the file"
    if err == TB_ERR_PAIRS:
        return "corrupt compression header"
    if err == TB_ERR_SYMBOLS:
        return "corrupt symbol table"
    if err == TB_ERR_MEMORY:
        return "out of memory"
    return "a WDL table of an asymmetric material with one side only"


cdef class SyzygyTables:
    """Syzygy tables from a list of folders (for each table, the first file that loads, in
    folder order).

    ``problems`` lists the files refused, as "path: reason"; a missing table is no problem.
    Probes return None when the position is not in the tables (missing table, castling rights,
    too many pieces, or a file found inconsistent while probing).
    """
    cdef Syzygy c
    cdef list _maps              # the mmap objects and memoryviews that keep the mappings alive
    cdef readonly list problems
    cdef readonly list wdl_names
    cdef readonly list dtz_names

    def __cinit__(self):
        memset(&self.c, 0, sizeof(Syzygy))
        self._maps = []
        self.problems = []
        self.wdl_names = []
        self.dtz_names = []

    def __init__(self, folders=()):
        import os
        import re
        name_pattern = re.compile(r"^K[QRBNP]*vK[QRBNP]*$")
        suffixes = {".rtbw": TB_WDL, ".rtbz": TB_DTZ}
        # For each table name, its files in folder order: the first that loads is used.
        candidates = {TB_WDL: {}, TB_DTZ: {}}
        for folder in folders:
            folder = os.fspath(folder)
            if not os.path.isdir(folder):
                self.problems.append(f"{folder}: not a folder")
                continue
            try:
                entries = sorted(os.listdir(folder))
            except OSError as exc:
                self.problems.append(f"{folder}: cannot be read ({exc.strerror or exc})")
                continue
            for entry in entries:
                stem, suffix = os.path.splitext(entry)
                if suffix in suffixes and name_pattern.match(stem):
                    candidates[suffixes[suffix]].setdefault(stem, []).append(os.path.join(folder, entry))
        self.c.wdl = <TbTable*>calloc(max(1, len(candidates[TB_WDL])), sizeof(TbTable))
        self.c.dtz = <TbTable*>calloc(max(1, len(candidates[TB_DTZ])), sizeof(TbTable))
        if self.c.wdl == NULL or self.c.dtz == NULL:
            raise MemoryError()
        for stem, paths in sorted(candidates[TB_WDL].items()):
            for path in paths:
                if self._add(TB_WDL, stem, path, &self.c.wdl[self.c.wdl_count]):
                    self.c.wdl_count += 1
                    self.wdl_names.append(stem)
                    self.c.max_pieces = max(self.c.max_pieces, len(stem) - 1)
                    break
        for stem, paths in sorted(candidates[TB_DTZ].items()):
            for path in paths:
                if self._add(TB_DTZ, stem, path, &self.c.dtz[self.c.dtz_count]):
                    self.c.dtz_count += 1
                    self.dtz_names.append(stem)
                    break
        self._build_hash()

    cdef bint _add(self, int kind, str stem, str path, TbTable* t) except -1:
        cdef int counts[14]
        cdef const uint8_t[::1] view
        cdef int err, i
        import mmap
        import os
        label = "WDL" if kind == TB_WDL else "DTZ"
        if len(stem) - 1 > TB_MAX_PIECES:
            self.problems.append(f"{path}: more than {TB_MAX_PIECES} pieces")
            return False
        for i in range(14):
            counts[i] = 0
        white, black = stem.split("v")
        for i, side in enumerate((white, black)):
            for letter in side:
                counts[i * 7 + "?PNBRQK".index(letter)] += 1
        if os.path.isdir(path):
            self.problems.append(f"{path}: a folder, not a table file")
            return False
        try:
            with open(path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size == 0:
                    self.problems.append(f"{path}: empty file")
                    return False
                mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except OSError as exc:
            self.problems.append(f"{path}: cannot be read ({exc.strerror or exc})")
            return False
        if hasattr(mapping, "madvise") and hasattr(mmap, "MADV_RANDOM"):
            mapping.madvise(mmap.MADV_RANDOM)
        buffer = memoryview(mapping)
        view = buffer
        t.data = &view[0]
        t.size = <size_t>view.shape[0]
        t.kind = kind
        err = tb_parse_table(t, counts)
        if err != TB_OK:
            tb_free_table(t)
            memset(t, 0, sizeof(TbTable))
            view = None
            buffer.release()
            mapping.close()
            self.problems.append(f"{path}: " + tb_error_message(err, label))
            return False
        self._maps.append((mapping, buffer))
        return True

    cdef int _build_hash(self) except -1:
        cdef uint64_t size = 64
        cdef int i, kind, count
        cdef TbTable* tables
        cdef uint64_t keys[2]
        cdef uint64_t slot
        cdef int k
        while size < 4 * 2 * <uint64_t>(self.c.wdl_count + self.c.dtz_count):
            size *= 2
        self.c.hash = <TbEntry*>calloc(size, sizeof(TbEntry))
        if self.c.hash == NULL:
            raise MemoryError()
        self.c.hash_mask = size - 1
        for kind in range(2):
            tables = self.c.wdl if kind == TB_WDL else self.c.dtz
            count = self.c.wdl_count if kind == TB_WDL else self.c.dtz_count
            for i in range(count):
                keys[0] = tables[i].key
                keys[1] = tb_mirror_signature(tables[i].key)
                for k in range(2):
                    if k == 1 and keys[1] == keys[0]:
                        continue
                    slot = tb_hash_slot(keys[k], self.c.hash_mask)
                    while self.c.hash[slot].sig != 0 and self.c.hash[slot].sig != (keys[k] | TB_USED):
                        slot = (slot + 1) & self.c.hash_mask
                    if self.c.hash[slot].sig == 0:
                        self.c.hash[slot].sig = keys[k] | TB_USED
                        self.c.hash[slot].wdl = -1
                        self.c.hash[slot].dtz = -1
                    if kind == TB_WDL and self.c.hash[slot].wdl < 0:
                        self.c.hash[slot].wdl = i
                    elif kind == TB_DTZ and self.c.hash[slot].dtz < 0:
                        self.c.hash[slot].dtz = i
        return 0

    def __dealloc__(self):
        cdef int i
        if self.c.wdl != NULL:
            for i in range(self.c.wdl_count):
                tb_free_table(&self.c.wdl[i])
        if self.c.dtz != NULL:
            for i in range(self.c.dtz_count):
                tb_free_table(&self.c.dtz[i])
        free(self.c.wdl)
        free(self.c.dtz)
        free(self.c.hash)
        self.c.wdl = NULL
        self.c.dtz = NULL
        self.c.hash = NULL

    @property
    def wdl_count(self):
        """WDL tables loaded (one per material)."""
        return self.c.wdl_count

    @property
    def dtz_count(self):
        """DTZ tables loaded."""
        return self.c.dtz_count

    @property
    def max_pieces(self):
        """The most pieces (kings included) of a loaded WDL table; 0 with none."""
        return self.c.max_pieces

    cdef CoreBoard _scratch(self, CoreBoard board):
        cdef CoreBoard scratch = CoreBoard.__new__(CoreBoard)
        position_copy(&scratch.pos, &board.pos)
        ensure_capacity(&scratch.pos, TB_PROBE_MAX_DEPTH + 8)
        return scratch

    def probe_wdl(self, CoreBoard board not None):
        """WDL of the position for the side to move (-2..2), or None."""
        cdef CoreBoard scratch = self._scratch(board)
        cdef int ok, v
        with nogil:
            v = tb_probe_wdl(&self.c, &scratch.pos, &ok)
        return v if ok else None

    def probe_dtz(self, CoreBoard board not None):
        """DTZ of the position for the side to move (python-chess's convention), or None."""
        cdef CoreBoard scratch = self._scratch(board)
        cdef int ok, v
        with nogil:
            v = tb_probe_dtz(&self.c, &scratch.pos, &ok)
        return v if ok else None

