"""Output files written the way careful tools write them, and the journal that lets an
interrupted run go on.

* OutputFile: the text goes to a temporary file in the target's folder, flushed as it is
  written; only a complete output (or, for an interrupted run, the finished part) is renamed
  over the target, and only over a regular file.  Until then an earlier file of that name is
  untouched; an error leaves it as it was.
* check_outputs: before any work, refuses an output that names an input, two outputs that
  name one file, an output that is a folder or not a regular file, and a folder that cannot
  be written (found by creating the temporary file there).
* Journal: one JSON line per finished item (a game), flushed and synced as it is written,
  beside the first output.  A run that ends normally removes it; an interrupted one leaves
  it, and `--resume` reads it back (checking it belongs to the same input and settings) to
  give the same outputs as a run that was never stopped.  A torn last line (the process was
  killed while writing it) is dropped; anything else unreadable is refused with its line.
"""
from __future__ import annotations

import json
import os
import stat
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

__all__ = ["OutputFile", "OutputError", "check_outputs", "Journal", "JournalError",
           "journal_path", "input_identity"]


class OutputError(Exception):
    """An output that cannot be written (said with the flag and the path)."""


class JournalError(Exception):
    """A journal that cannot be resumed from (said with the reason)."""


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def check_outputs(inputs: Sequence[str], outputs: Sequence[Tuple[str, str]]) -> Optional[str]:
    """The reason the outputs (flag, path) cannot be written, or None when they can."""
    for index, (flag, path) in enumerate(outputs):
        for source in inputs:
            if _same_file(path, source):
                return (f"{flag} {path} is the input file {source}: give another name (an "
                        f"input is never written over)")
        for other_flag, other in outputs[:index]:
            if _same_file(path, other):
                return f"{other_flag} and {flag} both name {path}: give each its own file"
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as error:
            return f"{flag} {path}: {error.strerror}"
        if mode is not None and stat.S_ISDIR(mode):
            return f"{flag} {path} is a directory: name a file"
        if mode is not None and not stat.S_ISREG(mode):
            return f"{flag} {path} is not a regular file: name a file"
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            return f"no such directory for {flag}: {folder}"
        try:
            handle, probe = tempfile.mkstemp(prefix=".scacco-", suffix=".probe", dir=folder)
        except OSError as error:
            return f"{flag} {path}: cannot write in {folder}: {error.strerror}"
        os.close(handle)
        os.remove(probe)
    return None


class OutputFile:
    """One output file: written to a temporary file beside the target, renamed over it by
    commit()."""

    def __init__(self, flag: str, path: str, newline: Optional[str] = None) -> None:
        self.flag, self.path = flag, path
        folder, name = os.path.split(os.path.abspath(path))
        # One fixed name per target: what a killed run left there is simply written over.
        self.temporary = os.path.join(folder, f".{name}.scacco-part")
        try:
            descriptor = os.open(self.temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        except OSError as error:
            raise OutputError(f"{flag} {path}: cannot write in {folder}: {error.strerror}") from None
        self.handle = os.fdopen(descriptor, "w", encoding="utf-8", newline=newline)

    def write(self, text: str) -> None:
        try:
            self.handle.write(text)
        except OSError as error:
            raise OutputError(f"cannot write {self.path}: {error.strerror}") from None

    def flush(self) -> None:
        try:
            self.handle.flush()
        except OSError as error:
            raise OutputError(f"cannot write {self.path}: {error.strerror}") from None

    def commit(self) -> None:
        """Renames the finished file over the target (a regular file, or none)."""
        try:
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.handle.close()
        except OSError as error:
            self.discard()
            raise OutputError(f"cannot write {self.path}: {error.strerror}") from None
        try:
            mode = os.stat(self.path).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as error:
            self.discard()
            raise OutputError(f"{self.flag} {self.path}: {error.strerror}") from None
        if mode is not None and not stat.S_ISREG(mode):
            self.discard()
            raise OutputError(f"{self.flag} {self.path} is no longer a regular file: "
                              "nothing written")
        # mkstemp makes the file private; give it what a new file of the user's would have
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self.temporary, 0o666 & ~umask)
        else:
            os.chmod(self.temporary, stat.S_IMODE(mode))
        os.replace(self.temporary, self.path)

    def discard(self) -> None:
        """Drops the temporary file; the target stays as it was."""
        try:
            self.handle.close()
        except OSError:
            pass
        try:
            os.remove(self.temporary)
        except FileNotFoundError:
            pass


def journal_path(output: str) -> str:
    """Where the journal of a run whose first output is `output` lives."""
    folder, name = os.path.split(os.path.abspath(output))
    return os.path.join(folder, f".{name}.scacco-resume")


def input_identity(path: str) -> Dict[str, Any]:
    """What tells that an input is still the file an interrupted run read."""
    info = os.stat(path)
    return {"path": os.path.abspath(path), "size": info.st_size, "mtime_ns": info.st_mtime_ns}


class Journal:
    """The record of a run's finished items (see the module docstring)."""

    VERSION = 1

    def __init__(self, path: str, header: Dict[str, Any]) -> None:
        self.path = path
        self.header = {"scacco_journal": self.VERSION, **header}
        self.handle = None

    def load(self) -> List[Dict[str, Any]]:
        """The records of the interrupted run, checked against this run's header.

        :raises JournalError: no journal, another run's, or damaged.
        """
        try:
            with open(self.path, encoding="utf-8") as handle:
                lines = handle.read().split("\n")
        except FileNotFoundError:
            raise JournalError("there is no interrupted run to resume (nothing recorded "
                               f"at {self.path})") from None
        except (OSError, UnicodeDecodeError) as error:
            raise JournalError(f"cannot read {self.path}: {error}") from None
        # every record ends with a newline: a last piece without one was cut off by a kill
        # while it was written, and is not used
        records = []
        for number, line in enumerate(lines[:-1], 1):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                raise JournalError(f"{self.path} is damaged at line {number}") from None
        if not records or records[0] != self.header:
            raise JournalError(self._mismatch(records[0] if records else None))
        return records[1:]

    def _mismatch(self, found: Optional[Dict[str, Any]]) -> str:
        if not isinstance(found, dict) or found.get("scacco_journal") != self.VERSION:
            return f"{self.path} is not a journal this Scacco can resume"
        for key, value in self.header.items():
            if found.get(key) != value:
                what = {"input": "the input file changed since the interrupted run",
                        "command": "it records another command",
                        "settings": "the interrupted run had other settings (give the "
                                    "same arguments as before)",
                        "outputs": "the interrupted run wrote other outputs (give the same "
                                   "ones as before)"}.get(key, f"its {key} differs")
                return f"cannot resume: {what}"
        return f"cannot resume from {self.path}"

    def start(self, records: Sequence[Dict[str, Any]] = ()) -> None:
        """A new journal holding the header and the records kept from before."""
        folder = os.path.dirname(self.path)
        try:
            descriptor, temporary = tempfile.mkstemp(prefix=".scacco-journal.", dir=folder)
            try:
                with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                    for record in (self.header, *records):
                        handle.write(json.dumps(record, separators=(",", ":")) + "\n")
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temporary, self.path)
            except OSError:
                os.remove(temporary)
                raise
            self.handle = open(self.path, "a", encoding="utf-8")
        except OSError as error:
            raise OutputError(f"cannot write the journal {self.path}: {error.strerror}") from None

    def add(self, record: Dict[str, Any]) -> None:
        try:
            self.handle.write(json.dumps(record, separators=(",", ":")) + "\n")
            self.handle.flush()
            os.fsync(self.handle.fileno())
        except OSError as error:
            raise OutputError(f"cannot write the journal {self.path}: {error.strerror}") from None

    def close(self, finished: bool) -> None:
        """Closes the journal; a finished run's journal is removed."""
        if self.handle is not None:
            self.handle.close()
            self.handle = None
        if finished:
            try:
                os.remove(self.path)
            except FileNotFoundError:
                pass

    def exists(self) -> bool:
        return os.path.exists(self.path)
