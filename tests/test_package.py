"""The installed package: one `scacco` namespace, its command line, its layering and its stub."""
import ast
import importlib.metadata
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import scacco
from scacco.ext import _core
from scacco.uci.__main__ import COMMANDS

REPO_ROOT = Path(__file__).resolve().parents[1]
LAYER_FOLDERS = {"ext": REPO_ROOT / "ext", "engine": REPO_ROOT / "engine", "uci": REPO_ROOT / "uci"}


def run_python(*args, cwd):
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("name", ["engine", "uci", "ext"])
def test_no_generic_top_level_package(name, tmp_path):
    result = run_python("-c", f"import {name}", cwd=tmp_path)
    assert result.returncode != 0
    assert "ModuleNotFoundError" in result.stderr


def test_installed_files_live_under_scacco():
    """site-packages holds scacco and its dist-info, nothing named engine, uci or ext."""
    site = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    for folder in site:
        names = {entry.name for entry in Path(folder).iterdir()}
        assert not names & {"engine", "uci", "ext", "engine.py", "uci.py", "ext.py"}
    dists = [d for d in importlib.metadata.distributions(path=sorted(site))
             if d.metadata["Name"] == "scacco"]
    assert dists, "scacco is not installed in this environment's site-packages"
    for dist in dists:
        tops = {Path(str(f)).parts[0] for f in dist.files or []}
        assert not tops & {"engine", "uci", "ext"}


def test_public_api_from_the_top():
    board = scacco.Board()
    board.push_uci("e2e4")
    result = scacco.Searcher(hash_mb=1).search(board, depth=2)
    assert result.best_move in board.legal_moves()
    assert set(scacco.__all__) >= {"Board", "Searcher", "SearchResult", "play", "__version__"}
    with pytest.raises(AttributeError):
        scacco.no_such_name


def test_version_and_help(tmp_path):
    version = run_python("-m", "scacco", "--version", cwd=tmp_path)
    assert version.returncode == 0
    assert version.stdout.strip() == f"scacco {importlib.metadata.version('scacco')}"
    helped = run_python("-m", "scacco", "--help", cwd=tmp_path)
    assert helped.returncode == 0
    listed = [line.split()[0] for line in helped.stdout.splitlines() if line.startswith("  ")]
    assert listed == list(COMMANDS)


def test_uci_id_name_carries_the_version(tmp_path):
    result = subprocess.run([sys.executable, "-m", "scacco"], input="uci\nquit\n", cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert f"id name Scacco {scacco.__version__}" in result.stdout.splitlines()


def test_py_typed_is_shipped():
    assert (Path(scacco.__file__).parent / "py.typed").is_file()


def _imported_layers(path: Path, package: str):
    """The layers (ext, engine, uci) that a module imports, at top level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                parts = (node.module or "").split(".")
                if parts[0] == "scacco" and len(parts) > 1:
                    found.add(parts[1])
                elif parts[0] in LAYER_FOLDERS:
                    found.add(parts[0] + " (absolute, not through scacco)")
            elif node.level == 1:
                found.add(package)
            elif node.level == 2 and node.module:
                found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in LAYER_FOLDERS:
                    found.add(top + " (absolute, not through scacco)")
    return found


@pytest.mark.parametrize("layer,allowed", [("ext", {"ext"}), ("engine", {"ext", "engine"}),
                                           ("uci", {"ext", "engine", "uci"})])
def test_dependencies_point_one_way(layer, allowed):
    for path in LAYER_FOLDERS[layer].glob("*.py"):
        imported = _imported_layers(path, layer) - {"_version"}
        assert imported <= allowed, f"{path.name} imports {imported - allowed}"


def test_no_import_cycle_inside_engine():
    graph = {}
    for path in LAYER_FOLDERS["engine"].glob("*.py"):
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(alias.name for alias in node.names)
        graph[path.stem] = deps - {path.stem}

    def visit(name, trail):
        assert name not in trail, f"import cycle: {' -> '.join(trail + [name])}"
        for dep in graph.get(name, ()):
            visit(dep, trail + [name])
    for module in graph:
        visit(module, [])


def test_stub_names_what_the_core_defines():
    stub = ast.parse((REPO_ROOT / "ext" / "_core.pyi").read_text())
    declared = {}
    for node in stub.body:
        if isinstance(node, ast.ClassDef):
            declared[node.name] = {item.name for item in node.body
                                   if isinstance(item, ast.FunctionDef) and item.name != "__init__"
                                   and item.name != "__len__"}
        elif isinstance(node, ast.FunctionDef):
            declared[node.name] = None
        elif isinstance(node, ast.AnnAssign):
            declared[node.target.id] = None
    actual = {name for name in dir(_core) if not name.startswith("__")}
    assert set(declared) == actual
    for name, members in declared.items():
        if members is not None:
            public = {m for m in dir(getattr(_core, name)) if not m.startswith("__")}
            assert members == public, name


def test_importing_the_uci_loop_and_the_command_line_loads_no_engine_core():
    """The reply to `uci` must not wait for the Cython core (it is loaded at the first
    command that needs it)."""
    code = ("import sys, scacco.uci.loop, scacco.uci.cli; "
            "print(sorted(m for m in sys.modules if m.startswith('scacco.ext')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd="/", timeout=60)
    assert done.returncode == 0, done.stderr
    assert "_core" not in done.stdout
