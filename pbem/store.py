"""A stored game's state: the one place that turns `Game.state_json` into an engine state and back.

Below the game domain and the letters, so both can read a game without importing each other.
"""
from __future__ import annotations

import json

import engine
from pbem.models import Game


def load_state(game: Game) -> engine.GameState:
    return engine.state_from_json(json.loads(game.state_json))


def dump_state(state: engine.GameState) -> str:
    return json.dumps(engine.state_to_json(state), separators=(",", ":"))
