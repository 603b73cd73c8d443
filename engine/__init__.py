"""Korsar (Reiner Knizia): the complete rules as a pure, deterministic library.

No I/O, no global random state, no imports from the web service. The public
API is documented in docs/engine-api.md; rules decisions in
docs/rules-decisions.md.
"""
from __future__ import annotations

from engine.cards import FULL_DECK, colour_of, validate_deck
from engine.errors import ConfigError, IllegalMove
from engine.events import Event
from engine.moves import normalize_move
from engine.rules import apply_move, check_config, check_move, is_legal, legal_moves, new_game, \
    partner_of, scores, shuffled_deck, team_of, team_scores, winners
from engine.state import EndSettlement, GameState, Options, state_from_json, state_to_json
from engine.text import card_name, describe_event, describe_move, winner_names
from engine.view import admin_view, player_view

__all__ = [
    "FULL_DECK", "validate_deck", "ConfigError", "IllegalMove", "Event", "normalize_move",
    "apply_move", "check_config", "check_move", "is_legal", "legal_moves", "new_game", "partner_of", "scores",
    "shuffled_deck",
    "team_of", "team_scores", "winners", "EndSettlement", "GameState", "Options", "state_from_json",
    "state_to_json", "card_name", "describe_event", "describe_move", "admin_view",
    "player_view", "colour_of", "winner_names",
]
