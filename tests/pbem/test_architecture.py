"""One direction (docs/architecture.md): each layer of pbem imports only the layers below it.

Read from the source (AST), so an import inside a function counts as much as one at the top:
a function-local import must not dodge a circle or reach up.
"""
from __future__ import annotations

import ast
from pathlib import Path

PBEM = Path(__file__).resolve().parents[2] / "pbem"

# The layers, lowest first. A module belongs to the longest prefix listed here.
ENTRY, DOMAIN, LETTERS, PRESENT, MAIL, BASE = 6, 5, 4, 3, 2, 1
LAYERS = {
    # entry points: parse, call the domain, render
    "pbem": ENTRY,  # the package root: create_app
    "pbem.web": ENTRY, "pbem.cli": ENTRY, "pbem.worker": ENTRY, "pbem.devserver": ENTRY,
    "pbem.gunicorn_conf": ENTRY,
    "pbem.inbound": ENTRY,  # replies by email: the SMTP receiver, the IMAP poller, their one handler
    # the game domain: games, moves, bots, turn clocks, notices, vacations, admin actions
    "pbem.games": DOMAIN,  # with its turn clocks (pbem.games.clocks)
    # every email: what it says and to whom
    "pbem.letters": LETTERS,
    # how a game is shown to every reader: board, phrasebook, final breakdown (not only letters)
    "pbem.present": PRESENT,
    # transport: knows no game
    "pbem.mail": MAIL,
    # storage, settings and pure helpers
    "pbem.config": BASE, "pbem.models": BASE, "pbem.db": BASE, "pbem.sqlite": BASE,
    "pbem.words": BASE, "pbem.i18n": BASE, "pbem.links": BASE, "pbem.logging": BASE, "pbem.runtime": BASE,
    "pbem.auth": BASE, "pbem.addresses": BASE, "pbem.refusals": BASE, "pbem.models_mail": BASE,
    "pbem.metrics": BASE, "pbem.models_analysis": BASE,
    "pbem.appctx": BASE, "pbem.schedule": BASE, "pbem.zones": BASE, "pbem.store": BASE, "pbem.migrations": BASE,
    "pbem.models_ratings": BASE,  # the ratings' tables (pbem/games/ratings.py writes them)
}

# Function-local pbem imports that are allowed, each with its reason: (module, imported module).
LAZY_ALLOWED = {
    # create_app wires the app: blueprints, commands and the delivery writers load only when an
    # app is built (importing `pbem` for its config must not import Flask views).
    ("pbem", "pbem.cli"): "create_app registers the commands",
    ("pbem", "pbem.web"): "create_app registers the blueprints",
    ("pbem", "pbem.web.admin"): "create_app registers the blueprints",
    ("pbem", "pbem.web.dev"): "create_app registers the blueprints",
    ("pbem", "pbem.web.health"): "create_app registers the blueprints",
    ("pbem", "pbem.web.metrics"): "create_app registers the blueprints",
    ("pbem", "pbem.web.player"): "create_app registers the blueprints",
    ("pbem", "pbem.web.prefs"): "create_app registers the blueprints",
    ("pbem", "pbem.web.talk"): "create_app registers the blueprints",
    ("pbem", "pbem.web.rules"): "create_app registers the blueprints",
    ("pbem", "pbem.web.replay"): "create_app registers the blueprints",
    ("pbem", "pbem.web.privacy"): "create_app registers the blueprints",
    ("pbem", "pbem.web.home"): "create_app registers the blueprints",
    ("pbem", "pbem.web.new_game"): "create_app registers the blueprints",
    ("pbem", "pbem.web.invites"): "create_app registers the blueprints",
    ("pbem", "pbem.web.my_games"): "create_app registers the blueprints",
    ("pbem", "pbem.web.seat_actions"): "create_app registers the blueprints",
    ("pbem", "pbem.web.seat"): "create_app registers the blueprints",
    ("pbem", "pbem.web.errors"): "create_app registers the error pages",
    ("pbem", "pbem.web.converters"): "create_app registers the URL converters",
    ("pbem", "pbem.web.i18n_web"): "create_app sets each request's language",
    ("pbem", "pbem.web.security"): "create_app installs the security headers",
    ("pbem", "pbem.logging"): "JSON logs are configured only outside tests",
    ("pbem", "pbem.letters.deferred"): "create_app hands mail its writers (register_writers)",
    ("pbem", "pbem.games.proposals"): "create_app hands mail its writers (register_writers)",
    ("pbem", "pbem.web.analysis"): "create_app registers the blueprints",
    ("pbem", "pbem.games.analysis"): "create_app hooks the analysis into finish.HOOKS (register)",
    ("pbem", "pbem.web.leaderboard"): "create_app registers the blueprints",
    ("pbem", "pbem.games.ratings"): "create_app hooks the ratings into the end of a game (ratings.register)",
}
# Entry points other than create_app may load what a command needs when it runs.
LAZY_ENTRY_MODULES = {"pbem.cli", "pbem.devserver", "pbem.worker"}
# Import edges left out of the circle check, each with its reason: the Flask idiom of a
# blueprint package whose route modules register themselves on its `bp` (entry layer only).
CIRCLE_ALLOWED = {
    ("pbem.web.admin.auth_views", "pbem.web.admin"): "routes register on the admin blueprint",
    ("pbem.web.admin.bounces", "pbem.web.admin"): "routes register on the admin blueprint",
    ("pbem.web.admin.ratings", "pbem.web.admin"): "routes register on the admin blueprint",
    ("pbem.web.admin.game_actions", "pbem.web.admin"): "routes register on the admin blueprint",
    ("pbem.web.admin.games", "pbem.web.admin"): "routes register on the admin blueprint",
    ("pbem.web.admin.outbox", "pbem.web.admin"): "routes register on the admin blueprint",
    ("pbem.web.admin.privacy", "pbem.web.admin"): "routes register on the admin blueprint",
    ("pbem.web.admin.stats", "pbem.web.admin"): "routes register on the admin blueprint",
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PBEM.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    return {_module_name(p): p for p in PBEM.rglob("*.py") if "versions" not in p.relative_to(PBEM).parts}


def _resolve(name: str, modules: dict[str, Path]) -> str:
    """`pbem.x.y` -> the module it loads (a name imported from a module is the module)."""
    while name not in modules and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _imports(path: Path, modules: dict[str, Path]) -> list[tuple[str, bool, int]]:
    """(imported pbem module, inside a function?, line) for every pbem import of a file."""
    found: list[tuple[str, bool, int]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                names = [f"{child.module}.{a.name}" for a in child.names]
            for name in names:
                if name.split(".")[0] == "pbem":
                    found.append((_resolve(name, modules), in_function, child.lineno))
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(ast.parse(path.read_text()), False)
    return found


def _layer(module: str) -> int:
    while module not in LAYERS:
        assert "." in module, f"{module} is in no layer: add it to LAYERS (and docs/architecture.md)"
        module = module.rsplit(".", 1)[0]
    return LAYERS[module]


def _graph() -> dict[str, list[tuple[str, bool, int]]]:
    modules = _sources()
    return {name: [i for i in _imports(path, modules) if i[0] != name] for name, path in modules.items()}


def test_every_module_has_a_layer() -> None:
    for module in _sources():
        _layer(module)


def test_no_layer_reaches_up() -> None:
    wrong = [f"{m}:{line} imports {target} (layer {_layer(m)} -> {_layer(target)})"
             for m, imports in _graph().items() for target, _, line in imports
             if _layer(target) > _layer(m)]
    assert not wrong, "\n".join(wrong)


def test_no_function_local_import_outside_entry_points() -> None:
    wrong = [f"{m}:{line} imports {target} inside a function"
             for m, imports in _graph().items() for target, nested, line in imports
             if nested and m not in LAZY_ENTRY_MODULES and (m, target) not in LAZY_ALLOWED]
    assert not wrong, "\n".join(wrong)


def test_no_import_circle() -> None:
    graph = {m: sorted({t for t, _, _ in imports if (m, t) not in CIRCLE_ALLOWED})
             for m, imports in _graph().items()}
    done: set[str] = set()

    def walk(module: str, path: list[str]) -> None:
        if module in path:
            raise AssertionError("import circle: " + " -> ".join(path[path.index(module):] + [module]))
        if module in done:
            return
        for target in graph.get(module, []):
            walk(target, path + [module])
        done.add(module)

    for module in graph:
        walk(module, [])


def test_the_letters_know_no_domain_and_mail_knows_no_letter() -> None:
    for m, imports in _graph().items():
        for target, _, line in imports:
            if m.startswith("pbem.letters"):
                assert not target.startswith(("pbem.games", "pbem.web")), f"{m}:{line}"
            if m.startswith("pbem.mail"):
                assert _layer(target) == BASE or target.startswith("pbem.mail"), f"{m}:{line}"


MAX_MODULE_LINES = 450  # a module past this holds more than one concept (issue 24); migrations aside


def test_no_module_of_pbem_holds_more_than_one_room() -> None:
    long = [f"{path.relative_to(PBEM.parent)}: {n} lines"
            for path in sorted(PBEM.rglob("*.py")) if "migrations" not in path.parts
            for n in [len(path.read_text(encoding="utf-8").splitlines())] if n > MAX_MODULE_LINES]
    assert not long, "\n".join(long)
