"""Every refusal of check_move carries a machine code and the parameters its sentence names, so
pbem/ can write it in the player's language; the English sentence (`str(exc)`) is unchanged."""
from __future__ import annotations

import pytest
from engine import IllegalMove, card_name, new_game
from engine.cards import CODE_KIND, COLOURS
from refusal_examples import CODES, examples, refusal


@pytest.mark.parametrize("code", CODES)
def test_each_refusal_code_comes_from_a_real_illegal_move(code: str) -> None:
    state, seat, move = examples()[code]
    exc = refusal(state, seat, move)
    assert exc is not None and exc.code == code


def test_check_move_gives_no_code_outside_the_documented_list() -> None:
    assert set(examples()) == set(CODES)


@pytest.mark.parametrize("code", CODES)
def test_the_parameters_are_what_the_english_sentence_names(code: str) -> None:
    state, seat, move = examples()[code]
    exc = refusal(state, seat, move)
    assert exc is not None
    sentence = str(exc)
    for key, value in exc.params.items():
        if key == "card":
            # the card played; the sentences that name it name it in words
            assert value in CODE_KIND or code == "unknown_card"
            if code in ("not_in_hand", "target_missing"):
                assert card_name(value) in sentence
        elif key == "colour":
            assert value in COLOURS and value.capitalize() in sentence
        elif key in ("ship", "to_move", "owner"):
            assert isinstance(value, int)
            if key == "ship":
                assert f"ship {value}" in sentence
        elif key in ("player", "owner_name"):
            assert value in sentence
        elif key == "teams":
            assert isinstance(value, bool)
        else:
            assert str(value) in sentence, (code, key, value)


def test_colour_taken_names_the_colour_and_the_ship() -> None:
    exc = IllegalMove("Blue is already fighting for ship 3: attack it with another colour.",
                      "colour_taken", {"colour": "blue", "ship": 3})
    assert (exc.code, exc.params, str(exc)) == (
        "colour_taken", {"colour": "blue", "ship": 3},
        "Blue is already fighting for ship 3: attack it with another colour.")


def test_a_move_out_of_turn_names_the_player_to_move() -> None:
    state = new_game(["Ann", "Bob"], seed=1)
    exc = refusal(state, 1, {"action": "draw"})
    assert exc is not None
    assert (exc.code, exc.params, str(exc)) == (
        "not_your_turn", {"to_move": 0, "player": "Ann"}, "It is Ann's turn, not yours.")
