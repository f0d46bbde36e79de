"""The documentation against the code: README.md and docs/ must not drift from what Scacco does.

* The option table of docs/uci.md lists every UCI option of uci/options.py, in order, with its
  type, default, range and description (Option.doc), and nothing else.
* The level table of docs/levels.md gives the anchors of engine/levels.py.
* Every ```python block of the README and docs/ runs (each page's blocks in order, in one
  namespace, in an empty working folder).
* The README stays a README (under 16 KB), and every relative link of every page points at a
  file that exists (and at a heading that exists, for a link with an anchor).
* The commands the README and docs/command-line.md list are `scacco --help`'s.
"""
import re
import unicodedata
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
MAX_README_BYTES = 16 * 1024

FENCE = re.compile(r"^(```+)(\w*)[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


def doc_pages():
    return [README] + sorted(DOCS.rglob("*.md"))


def page_id(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT))


def without_code(text: str) -> str:
    """The page with its fenced blocks blanked (line numbers kept): links and headings in
    code are not links and headings."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def code_blocks(text: str, language: str):
    """(first line number, source) of every fenced block in that language."""
    return [(text.count("\n", 0, m.start(3)) + 1, m.group(3))
            for m in FENCE.finditer(text) if m.group(2) == language]


def table_after(text: str, header: str):
    """The rows (lists of stripped cells) of the markdown table whose header row starts with
    `header`."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.replace(" ", "").startswith(header.replace(" ", "")):
            rows = []
            for row in lines[index + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([cell.strip() for cell in row.strip().strip("|").split("|")])
            return rows
    raise AssertionError(f"no table with the header {header!r}")


def plain(cell: str) -> str:
    return cell.replace("`", "").strip()


# -- the option table -----------------------------------------------------------------------

def documented_value(option, which: str) -> str:
    """How the docs table writes an option's default, minimum or maximum."""
    if which == "default":
        if option.kind == "check":
            return "true" if option.default else "false"
        if option.kind == "button":
            return ""
        return str(option.default)
    if option.kind != "spin":
        return ""
    return str(option.minimum if which == "min" else option.maximum)


def test_option_table_matches_the_options():
    from scacco.uci.options import standard_options

    text = (DOCS / "uci.md").read_text(encoding="utf-8")
    rows = table_after(text, "| Option | Type | Default | Min | Max |")
    documented = {plain(row[0]): row for row in rows}
    options = standard_options()
    names = [option.name for option in options]
    assert [plain(row[0]) for row in rows] == names, \
        "docs/uci.md must list every option of uci/options.py, in its order, and no other"
    for option in options:
        row = documented[option.name]
        assert len(row) == 6, f"{option.name}: the row needs six cells"
        _, kind, default, low, high, _ = map(plain, row)
        assert kind == option.kind, f"{option.name}: type"
        assert default == documented_value(option, "default"), f"{option.name}: default"
        assert low == documented_value(option, "min"), f"{option.name}: min"
        assert high == documented_value(option, "max"), f"{option.name}: max"
        assert option.doc, f"{option.name}: say what it does (Option.doc)"
        assert row[5] == option.doc, \
            f"{option.name}: the description must be uci/options.py's Option.doc, word for word"
        for choice in option.choices:          # a combo names every value it takes
            assert f"`{choice}`" in row[5], f"{option.name}: the choice {choice} is not named"


def test_option_table_reader_sees_a_drift():
    """The comparison above fails on a table that has drifted (so it is no empty check)."""
    from scacco.uci.options import standard_options

    hash_option = standard_options()[0]
    assert hash_option.name == "Hash"
    assert documented_value(hash_option, "default") == str(hash_option.default)
    drifted = "| Option | Type | Default | Min | Max | What |\n| - | - | - | - | - | - |\n" \
              "| `Hash` | spin | 32 | 1 | 1024 | size |\n"
    row = table_after(drifted, "| Option | Type | Default | Min | Max |")[0]
    assert plain(row[2]) != documented_value(hash_option, "default")


# -- the level table ------------------------------------------------------------------------

def test_level_table_matches_the_anchors():
    from scacco.engine.levels import LEVEL_ANCHORS, NAMED_LEVELS, NETWORK_LEVEL_ANCHORS

    text = (DOCS / "levels.md").read_text(encoding="utf-8")
    rows = table_after(text, "| Level | UCI_Elo |")
    by_elo = {int(plain(row[1])): row for row in rows}
    assert sorted(by_elo) == [anchor[0] for anchor in NETWORK_LEVEL_ANCHORS]
    assert [anchor[0] for anchor in LEVEL_ANCHORS] == [anchor[0] for anchor in NETWORK_LEVEL_ANCHORS]
    for name, elo in NAMED_LEVELS.items():
        assert plain(by_elo[elo][0]) == name
    for network, classical in zip(NETWORK_LEVEL_ANCHORS, LEVEL_ANCHORS):
        elo, net_nodes, net_depth, net_candidates, net_margin, net_noise = network
        _, nodes, depth, candidates, margin, noise = classical
        row = [plain(cell) for cell in by_elo[elo]]
        assert int(row[2]) == net_nodes and int(row[3]) == nodes, f"{elo}: nodes"
        assert net_depth == depth and int(row[4]) == depth, f"{elo}: depth"
        assert net_candidates == candidates and int(row[5]) == candidates, f"{elo}: candidates"
        assert row[6] == f"{net_margin} / {margin}", f"{elo}: margins"
        assert row[7] == f"{round(net_noise)} / {round(noise)}", f"{elo}: noise"


# -- the code examples ----------------------------------------------------------------------

PAGES_WITH_CODE = [page for page in doc_pages()
                   if code_blocks(page.read_text(encoding="utf-8"), "python")]


def test_the_api_page_has_examples():
    assert DOCS / "python-api.md" in PAGES_WITH_CODE


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=page_id)
def test_python_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    for line, source in code_blocks(page.read_text(encoding="utf-8"), "python"):
        # the blank lines put a traceback's line numbers on the page's own lines
        code = compile("\n" * (line - 1) + source, str(page), "exec")
        exec(code, namespace)


# -- the README and the links ---------------------------------------------------------------

def test_readme_is_short():
    size = len(README.read_bytes())
    assert size < MAX_README_BYTES, f"README.md is {size} bytes: move detail to docs/"


def heading_anchor(title: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    title = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", title).replace("`", "").lower()
    kept = "".join(ch for ch in title
                   if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path):
    found, seen = set(), {}
    for title in HEADING.findall(without_code(path.read_text(encoding="utf-8"))):
        anchor = heading_anchor(title)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def relative_links(path: Path):
    for target in LINK.findall(without_code(path.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):      # http:, https:, mailto:
            continue
        yield target


def test_heading_anchor_follows_github():
    assert heading_anchor("Interrupted runs and `--resume`") == "interrupted-runs-and---resume"
    assert heading_anchor("Hash: allocation and clearing") == "hash-allocation-and-clearing"
    assert heading_anchor("Mates: `scacco solve`") == "mates-scacco-solve"


@pytest.mark.parametrize("page", doc_pages(), ids=page_id)
def test_relative_links_point_at_what_exists(page):
    for target in relative_links(page):
        file_part, _, anchor = target.partition("#")
        destination = (page.parent / file_part).resolve() if file_part else page
        assert destination.exists(), f"{page_id(page)}: the link {target} points at nothing"
        assert REPO_ROOT in destination.parents or destination == REPO_ROOT, \
            f"{page_id(page)}: the link {target} leaves the repository"
        if anchor and destination.suffix == ".md":
            assert anchor in anchors(destination), \
                f"{page_id(page)}: the link {target} names no heading of {destination.name}"


def test_readme_links_the_docs():
    linked = {(README.parent / target.partition("#")[0]).resolve()
              for target in relative_links(README)}
    for name in ("uci.md", "command-line.md", "python-api.md", "analysis.md", "puzzles.md",
                 "levels.md", "network.md", "development.md", "results/README.md"):
        assert (DOCS / name).resolve() in linked, f"README.md does not link docs/{name}"


def test_every_results_page_is_listed():
    index = (DOCS / "results" / "README.md").read_text(encoding="utf-8")
    for page in (DOCS / "results").glob("*.md"):
        if page.name != "README.md":
            assert f"({page.name}" in index, f"docs/results/README.md does not link {page.name}"


# -- the commands ---------------------------------------------------------------------------

def listed_commands(text: str):
    """The subcommands in the rows of a table whose first cell is `scacco NAME ...`."""
    found = []
    for line in text.splitlines():
        match = re.match(r"\|\s*`scacco ([a-z0-9-]+)", line)
        if match:
            found.append(match.group(1))
    return found


@pytest.mark.parametrize("page", [README, DOCS / "command-line.md"], ids=page_id)
def test_listed_commands_are_the_commands(page):
    from scacco.uci.cli import COMMANDS

    assert listed_commands(page.read_text(encoding="utf-8")) == list(COMMANDS), \
        f"{page_id(page)} must list the commands of `scacco --help`, in its order"


def test_help_lists_the_commands():
    """`scacco --help`, as the user sees it, has exactly the commands of COMMANDS."""
    import subprocess
    import sys

    from scacco.uci.cli import COMMANDS

    shown = subprocess.run([sys.executable, "-m", "scacco", "--help"], capture_output=True,
                           text=True, timeout=60, check=True).stdout
    listed = shown.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split()[0] for line in listed.splitlines()] == list(COMMANDS)
