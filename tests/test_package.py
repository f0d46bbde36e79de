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


def _module_parts(path: Path):
    """The module's dotted name inside scacco, as parts: engine/review/analysis.py ->
    ["engine", "review", "analysis"] (a package's __init__ is the package)."""
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imports(path: Path):
    """Every module a file imports (at top level or inside functions), as parts inside
    scacco; an absolute import of a layer not through scacco as ("<absolute>", layer)."""
    parts = _module_parts(path)
    package = parts if path.name == "__init__.py" else parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                names = (node.module or "").split(".")
                if names[0] == "scacco" and len(names) > 1:
                    found.append(names[1:])
                elif names[0] in LAYER_FOLDERS:
                    found.append(["<absolute>", names[0]])
                continue
            base = package[:len(package) - (node.level - 1)]
            if node.module:
                found.append(base + node.module.split("."))
            else:
                found.extend(base + [alias.name] for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in LAYER_FOLDERS:
                    found.append(["<absolute>", top])
    return found


def _imported_layers(path: Path):
    """The layers (ext, engine, uci) that a module imports."""
    return {("absolute " + parts[1]) if parts[0] == "<absolute>" else parts[0]
            for parts in _imports(path)}


def _layer_files(layer: str):
    return sorted(LAYER_FOLDERS[layer].rglob("*.py"))


@pytest.mark.parametrize("layer,allowed", [("ext", {"ext"}), ("engine", {"ext", "engine"}),
                                           ("uci", {"ext", "engine", "uci"})])
def test_dependencies_point_one_way(layer, allowed):
    files = _layer_files(layer)
    assert files
    for path in files:
        imported = _imported_layers(path) - {"_version"}
        assert imported <= allowed, f"{path} imports {imported - allowed}"


# engine's parts: the core (its top-level modules) below the review, the trainer and the
# training, which may use the core (and the trainer the review), never the other way round.
ENGINE_PARTS = {"core": {"core"}, "review": {"core", "review"},
                "trainer": {"core", "review", "trainer"}, "training": {"core", "training"}}


def _engine_part(parts) -> str:
    return parts[1] if len(parts) > 2 and parts[1] in ENGINE_PARTS else "core"


def test_the_engines_core_sits_below_its_parts():
    for path in _layer_files("engine"):
        mine = _engine_part(_module_parts(path))
        for parts in _imports(path):
            if parts[0] == "engine" and len(parts) > 1:
                assert _engine_part(parts) in ENGINE_PARTS[mine], \
                    f"{path} ({mine}) imports {'.'.join(parts)}"


def test_no_import_cycle_inside_engine():
    modules = {".".join(_module_parts(path)): path for path in _layer_files("engine")}
    graph = {}
    for name, path in modules.items():
        deps = set()
        for parts in _imports(path):
            # the longest known module the import names (a name imported from a module
            # belongs to that module)
            for cut in range(len(parts), 0, -1):
                candidate = ".".join(parts[:cut])
                if candidate in modules:
                    deps.add(candidate)
                    break
        graph[name] = deps - {name} - {"engine"}

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
