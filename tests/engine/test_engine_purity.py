"""The engine is pure: it imports nothing from the service or its frameworks."""
import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = ("pbem", "flask", "sqlmodel", "sqlalchemy")


def test_engine_source_imports_nothing_from_pbem_flask_or_sqlmodel():
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"


def test_importing_every_engine_module_loads_no_service_module():
    code = ("import sys, engine, engine.bots, engine.replay, engine.bench, engine.testing, "
            "engine.__main__\n"
            f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ENGINE.parent, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[]"


def test_engine_never_touches_the_global_random():
    for path in ENGINE.rglob("*.py"):
        text = path.read_text()
        for call in ("random.shuffle(", "random.choice(", "random.randint(", "random.seed(",
                     "random.random("):
            assert call not in text, f"{path.name} uses {call}"
