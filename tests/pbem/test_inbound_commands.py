"""Reading a reply into a move (issue 22, "What must hold" 2 and the talk of 3): a move is played
only when the reply names it without doubt, by its number alone, by a label our email printed or
in words of the seat's language and English; when two moves fit or none does, nothing is played
and the answer numbers the candidates (or every move). Talk is only what the writer meant to say."""
from __future__ import annotations

import dataclasses
import quopri
import random
import unicodedata
from typing import Any

import engine
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inbound_helpers import move_words

from pbem import i18n
from pbem.inbound import commands
from pbem.inbound.commands import Reading, read_reply
from pbem.inbound.lexer import fold
from pbem.inbound.move_line import Command, read_command
from pbem.inbound.vocabulary import VOCABULARIES
from pbem.inbound.message import read_message
from pbem.present import phrases

LANGS = tuple(i18n.LANGUAGES)

# One turn of Ann (seat 0) against Bob and Cid: ship 1 is Ann's (3 gold), 2 Bob's (4), 3 Cid's (5).
VIEW: dict[str, Any] = {"seat": 0, "players": ["Ann", "Bob", "Cid"], "partner": None,
                        "table": [{"id": 1, "owner": 0, "value": 3}, {"id": 2, "owner": 1, "value": 4},
                                  {"id": 3, "owner": 2, "value": 5}]}
LEGAL: list[dict[str, Any]] = [
    {"action": "draw"},                               # 1
    {"action": "play", "card": "M5"},                 # 2
    {"action": "play", "card": "G2", "target": 2},    # 3
    {"action": "play", "card": "G2", "target": 3},    # 4
    {"action": "play", "card": "B1", "target": 1},    # 5 (defends Ann's own ship)
    {"action": "play", "card": "B1", "target": 2},    # 6
    {"action": "play", "card": "B1", "target": 3},    # 7
    {"action": "play", "card": "AD", "target": 1},    # 8
    {"action": "play", "card": "R3", "target": 2},    # 9
]
EVERY = list(range(1, len(LEGAL) + 1))


def label(move: dict[str, Any], lang: str, view: dict[str, Any] = VIEW) -> str:
    with i18n.using(lang):
        return phrases.describe_move(move, view)


def labels_for(lang: str, legal: list[dict[str, Any]] = LEGAL, view: dict[str, Any] = VIEW) -> list[list[str]]:
    """What the lead passes: each move's label in the seat's language and in English."""
    return [list(dict.fromkeys([label(m, lang, view), label(m, "en", view)])) for m in legal]


def languages(lang: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys([lang, "en"]))


def read(text: str, lang: str = "en", *, legal: list[dict[str, Any]] = LEGAL, with_labels: bool = True,
         names: tuple[str, ...] = ("Ann",)) -> Reading:
    return read_reply(text, legal, labels=labels_for(lang, legal) if with_labels else None,
                      languages=languages(lang), own_names=names)


def played(reading: Reading) -> int | None:
    """The number of the legal move the reading plays, else None."""
    return LEGAL.index(reading.move) + 1 if reading.move in LEGAL else None


def test_every_language_we_speak_has_its_reply_words_and_only_those() -> None:
    assert list(VOCABULARIES) == list(i18n.LANGUAGES)


# ---------------------------------------------------------------- 1. a number alone on its line
@pytest.mark.parametrize("lang, line", [
    ("en", "2"), ("en", "#2"), ("en", "no. 2"), ("en", "nr 2"), ("en", "move 2"), ("en", "Number 2"),
    ("en", "2 please"), ("en", "#2 please"), ("en", "2, thanks!"), ("en", "the 2"), ("en", "I'll take 2"),
    ("en", "option 2"), ("en", "(2)"), ("en", "2."), ("en", "2 :)"), ("en", "  2  "),
    ("fr", "2"), ("fr", "n°2"), ("fr", "nº 2"), ("fr", "no 2"), ("fr", "coup 2"), ("fr", "coup n°2"),
    ("fr", "2 merci"), ("fr", "le 2 svp"), ("fr", "je choisis le 2"), ("fr", "numéro 2"),
    ("fr", "2 merci beaucoup !"),
    ("vi", "2"), ("vi", "số 2"), ("vi", "nước 2"), ("vi", "nước đi 2"), ("vi", "số 2 nhé"), ("vi", "chọn 2"),
    ("vi", "2 ạ"), ("vi", "nước đi số 2 nha"), ("vi", "so 2 nhe"),
])
def test_a_number_alone_on_its_line_is_the_move_of_that_number(lang, line):
    reading = read(line, lang)
    assert reading.move == LEGAL[1] and reading.command == line.strip()


@pytest.mark.parametrize("lang", LANGS)
def test_a_number_out_of_the_list_is_refused_with_every_move(lang):
    reading = read("99", lang)
    assert reading.move is None and reading.choices == EVERY and reading.problem


def test_a_number_out_of_the_list_is_refused_with_the_range():
    reading = read_reply("9", [{"action": "draw"}, {"action": "play", "card": "M5"}])
    assert reading.move is None and reading.problem is not None and "from 1 to 2" in reading.problem


@pytest.mark.parametrize("lang, line", [
    ("en", "play 2"), ("en", "I play 2"), ("en", "draw 2"), ("en", "2 cards please"),
    ("fr", "je joue 2"), ("fr", "jouer 2"), ("fr", "pioche 2"), ("fr", "tire 2 cartes"),
    ("vi", "đánh 2"), ("vi", "rút 2 lá"), ("vi", "lá 2"), ("vi", "chơi 2"),
])
def test_a_number_inside_other_words_is_never_a_move_number(lang, line):
    reading = read(line, lang)
    assert reading.move is None and reading.choices == EVERY
    assert reading.problem is not None and "number alone" in reading.problem


@pytest.mark.parametrize("lang, line", [
    ("fr", "jouer le vaisseau 5"), ("fr", "je pose le vaisseau 5"), ("en", "play the ship 5"),
    ("en", "play my 5 ship"), ("vi", "đặt tàu 5"),
])
def test_a_ship_and_a_number_with_a_play_word_is_the_merchant_ship_of_that_gold(lang, line):
    assert read(line, lang).move == {"action": "play", "card": "M5"}


@pytest.mark.parametrize("lang, line", [
    ("fr", "jouer le vaisseau 3"), ("en", "play the ship 3"), ("en", "play my 3 ship"), ("vi", "đặt tàu 3"),
    ("fr", "vaisseau 3"), ("en", "ship 3"), ("vi", "tàu 3"),
])
def test_a_ship_and_a_number_is_never_the_ship_of_that_number_nor_sent_to_the_rules(lang, line):
    """Ship 3 is on the table, but no 3-gold merchant ship is in hand: nothing, not a guess."""
    reading = read(line, lang)
    assert reading.move is None and reading.choices == EVERY


FIRST_TURN: list[dict[str, Any]] = [{"action": "draw"}, {"action": "play", "card": "M3"},
                                    {"action": "play", "card": "M5"}]


@pytest.mark.parametrize("lang, line", [
    ("fr", "je joue le vaisseau 3"), ("fr", "poser mon vaisseau 3"), ("en", "play ship 3"),
    ("en", "play the ship 3"), ("vi", "đặt tàu 3"), ("vi", "chơi tàu 3"),
])
def test_a_ship_number_that_is_one_ships_gold_and_another_ships_move_number_is_refused_with_both(lang, line):
    """Ships of 3 and 5 gold in hand, the 5 being move 3: "the ship 3" is either."""
    reading = read_reply(line, FIRST_TURN, languages=languages(lang))
    assert reading.move is None and reading.choices == [2, 3] and reading.problem


@pytest.mark.parametrize("lang, line, number", [
    ("fr", "je joue le vaisseau 5", 3), ("en", "play the ship 5", 3), ("vi", "đặt tàu 5", 3),
    ("fr", "2. je joue le vaisseau 3", 2), ("fr", "je joue le vaisseau de 3", 2), ("en", "play the 3 gold ship", 2),
    ("vi", "đặt tàu 3 vàng", 2),
])
def test_a_ship_number_that_only_its_gold_or_its_own_move_explains_plays_that_ship(lang, line, number):
    assert read_reply(line, FIRST_TURN, languages=languages(lang)).move == FIRST_TURN[number - 1]


def test_a_ship_number_that_is_its_own_move_number_too_plays_it():
    legal = [{"action": "draw"}, {"action": "play", "card": "M2"}, {"action": "play", "card": "M4"}]
    assert read_reply("jouer le vaisseau 2", legal, languages=("fr", "en")).move == legal[1]


@pytest.mark.parametrize("lang, line, number", [
    ("fr", "jouer le vaisseau 3", 3), ("fr", "vaisseau 5", 5), ("vi", "tàu 2", 2), ("vi", "lá 3", 3),
    ("fr", "poser mon vaisseau 3", 3), ("fr", "Poser votre vaisseau (3 pièces d'or)", 3), ("en", "ship 4", 4),
])
def test_a_ship_or_card_word_beside_a_number_never_makes_it_a_move_number(lang, line, number):
    """The players' review: "jouer le vaisseau 3" played move 3, an attack she never meant."""
    move = read(line, lang).move
    assert move is None or move == {"action": "play", "card": f"M{number}"}  # a merchant of that gold at most


@pytest.mark.parametrize("lang, line, number", [
    ("fr", "Je pioche une carte, merci !", 1), ("vi", "Mình rút bài nhé", 1), ("vi", "tôi rút bài nhé", 1),
    ("vi", "rút 1 lá", 1), ("fr", "poser mon vaisseau 5, merci", 2), ("fr", "je pioche svp", 1),
    ("vi", "bốc bài nha", 1), ("fr", "Poser votre vaisseau (5 or)", 2),
    ("fr", "Poser votre vaisseau (5 pièces d'or)", 2),
])
def test_courtesy_on_a_command_line_and_our_labels_old_and_new_leave_it_the_move(lang, line, number):
    assert played(read(line, lang)) == number


@pytest.mark.parametrize("lang, line, number", [
    ("en", "admiral on my ship", 8), ("fr", "amiral sur mon vaisseau, merci", 8),
    ("vi", "đánh đô đốc lên tàu của tôi", 8), ("en", "defend my ship with blue 1", 5),
    ("fr", "je défends mon vaisseau avec le bleu 1", 5), ("vi", "bảo vệ tàu của mình bằng xanh dương 1", 5),
    ("en", "merchant", 2), ("fr", "je pose mon vaisseau", 2), ("vi", "đặt tàu của tôi", 2),
    ("en", "I play my merchant ship of 5 gold", 2), ("fr", "mon navire marchand", 2),
])
def test_my_ship_without_its_number_is_the_one_our_labels_call_yours(lang, line, number):
    assert played(read(line, lang)) == number


@pytest.mark.parametrize("lang, line", [("en", "admiral on my ship"), ("fr", "je défends mon vaisseau avec le bleu 1"),
                                        ("vi", "bảo vệ tàu của mình bằng xanh dương 1")])
def test_my_ship_without_its_number_is_not_guessed_without_our_labels(lang, line):
    assert read(line, lang, with_labels=False).move is None


@pytest.mark.parametrize("lang, line", [("en", "attack 3 with B1"), ("fr", "attaquer 3 avec le bleu 1"),
                                        ("vi", "tấn công 3 bằng xanh dương 1")])
def test_a_number_beside_a_card_is_the_ship_it_goes_on(lang, line):
    assert read(line, lang).move == LEGAL[6]


# ---------------------------------------------------------------- 2. our own labels, copied
def _copies(text: str, number: int) -> list[str]:
    """A label as mail clients and players pass it on: numbered as printed, case, diacritics,
    punctuation and spaces changed, a courtesy word added."""
    return [text, f"{number}. {text}", f"{number}) {text}", text.upper(), text.lower(), fold(text),
            unicodedata.normalize("NFD", text), text.replace("(", "").replace(")", ""),
            "  ".join(text.split()), f"{text} !", f"{text}, merci", f"{text} please", f"{text} nhé"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("with_labels", [True, False], ids=["labels", "words"])
def test_every_label_our_email_prints_plays_its_move_copied_as_is(lang, with_labels):
    for number, move in enumerate(LEGAL, 1):
        for copy in _copies(label(move, lang), number):
            reading = read(copy, lang, with_labels=with_labels)
            assert reading.move == move, (copy, reading)


@pytest.mark.parametrize("lang, line, number", [
    ("fr", "Play your merchant ship (5 gold)", 2), ("fr", "Attack Bob's ship 2 (4 gold) with Green 2", 3),
    ("vi", "Defend your ship 1 (3 gold) with Blue 1", 5), ("vi", "Đặt Tàu Buôn của bạn (5 vàng)", 2),
    ("fr", "Défendre votre vaisseau 1 (3 or) avec le Corsaire bleu 1", 5),
    ("en", "Play the Admiral on your ship 1 (3 gold)", 8),
])
def test_a_label_in_the_seat_language_or_english_plays_its_move(lang, line, number):
    assert played(read(line, lang)) == number


def test_a_label_that_fits_two_moves_is_ambiguous():
    legal = [{"action": "play", "card": "M5"}, {"action": "play", "card": "M5"}]
    same = [["Play your merchant ship (5 gold)"], ["Play your merchant ship (5 gold)"]]
    reading = read_reply("Play your merchant ship (5 gold)", legal, labels=same)
    assert reading.move is None and reading.choices == [1, 2]


@pytest.mark.parametrize("lang", LANGS)
def test_a_number_and_a_label_that_name_different_moves_play_nothing(lang):
    reading = read(f"3. {label(LEGAL[1], lang)}", lang)
    assert reading.move is None and reading.choices == [2, 3]


# ---------------------------------------------------------------- 3. words
WORDS: list[tuple[str, str, int]] = [
    ("en", "draw", 1), ("en", "I'll draw a card, thanks!", 1), ("en", "Draw a card please", 1),
    ("en", "let me draw", 1), ("en", "draw?", 1), ("en", "Hi, draw", 1), ("en", "play M5", 2),
    ("en", "merchant 5", 2), ("en", "M5", 2), ("en", "the 5 gold ship", 2),
    ("en", "Attack Bob's ship 2 (4 gold) with Green 2", 3), ("en", "attack ship 3 with green 2", 4),
    ("en", "G2 on 3", 4), ("en", "green 2 onto ship 3", 4), ("en", "defend my ship 1 with blue 1", 5),
    ("en", "B1 1", 5), ("en", "blue 1 on Bob's ship 2", 6), ("en", "blue on 3", 7), ("en", "admiral on 1", 8),
    ("en", "play the admiral on my ship 1", 8), ("en", "Red 3", 9), ("en", "attack with red 3", 9),
    ("en", "R3 2", 9), ("en", "ADMIRAL 1", 8),
    ("fr", "pioche", 1), ("fr", "Je pioche une carte, merci !", 1), ("fr", "piocher", 1),
    ("fr", "je tire une carte", 1), ("fr", "pioché?", 1), ("fr", "Poser votre vaisseau (5 or)", 2),
    ("fr", "je pose mon vaisseau de 5", 2), ("fr", "vaisseau de 5 pièces d'or", 2), ("fr", "marchand 5", 2),
    ("fr", "Attaquer le vaisseau 2 de Bob (4 or) avec le Corsaire vert 2", 3),
    ("fr", "corsaire vert 2 sur 3", 4), ("fr", "le vert 2 sur le vaisseau 3 de Cid", 4),
    ("fr", "défendre mon vaisseau 1 avec le bleu 1", 5), ("fr", "je défends mon vaisseau 1 avec le bleu 1 svp", 5),
    ("fr", "defendre mon vaisseau 1 avec le bleu 1", 5), ("fr", "dèfendre mon vaisseau 1 avec le bleu 1", 5),
    ("fr", "bleu 1 sur 2", 6), ("fr", "amiral sur 1", 8),
    ("fr", "Jouer l'Amiral sur votre vaisseau 1 (3 or)", 8), ("fr", "rouge 3", 9),
    ("fr", "j'attaque le vaisseau 2 avec le rouge 3", 9), ("fr", "j’attaque le vaisseau 2 avec le rouge 3", 9),
    ("vi", "rút", 1), ("vi", "rút 1 lá", 1), ("vi", "bốc 1 lá nhé", 1), ("vi", "Rút một lá bài", 1),
    ("vi", "rut bai", 1), ("vi", "tôi rút bài nha", 1), ("vi", "Đặt Tàu Buôn của bạn (5 vàng)", 2),
    ("vi", "đặt tàu buôn 5 vàng", 2), ("vi", "tàu buôn 5", 2),
    ("vi", "tấn công tàu 2 của Bob bằng xanh lá 2", 3), ("vi", "tàu hải tặc xanh lá 2 lên tàu 3", 4),
    ("vi", "xanh lá 2 lên 3", 4), ("vi", "bảo vệ tàu 1 bằng xanh dương 1", 5),
    ("vi", "phòng thủ tàu 1 của tôi bằng xanh dương 1 nhé", 5), ("vi", "đô đốc lên tàu 1", 8),
    ("vi", "Đánh Đô Đốc lên tàu 1 của bạn (3 vàng)", 8), ("vi", "đỏ 3", 9), ("vi", "danh do 3 len tau 2", 9),
    ("vi", "do doc len 1", 8), ("vi", "đánh đỏ 3 vào tàu 2 ạ", 9),
]


@pytest.mark.parametrize("lang, line, number", WORDS)
def test_a_move_in_words_of_the_seat_language_or_english_is_played(lang, line, number):
    reading = read(line, lang)
    assert played(reading) == number, reading


@pytest.mark.parametrize("lang, line, number", WORDS)
def test_a_move_in_words_is_read_without_our_labels_too(lang, line, number):
    assert played(read(line, lang, with_labels=False)) == number


@pytest.mark.parametrize("line, move", [
    ("draw", Command(action="draw")),
    ("Piocher", Command(action="draw")),
    ("rút bài", Command(action="draw")),
    ("RUT BAI", Command(action="draw")),
    ("M5", Command(action="play", card="M5")),
    ("B3 3", Command(action="play", card="B3", target=3)),
    ("b3 on 3", Command(action="play", card="B3", target=3)),
    ("attack 3 with B3", Command(action="play", card="B3", target=3)),
    ("GC 2", Command(action="play", card="GC", target=2)),
    ("admiral 4", Command(action="play", card="AD", target=4)),
    ("discard G1", Command(action="discard", card="G1")),
    ("corsaire bleu 3 sur 2", Command(action="play", card="B3", target=2)),
    ("Défausser vert 1", Command(action="discard", card="G1")),
    ("capitaine noir sur 1", Command(action="play", card="KC", target=1)),
    ("amiral 2", Command(action="play", card="AD", target=2)),
    ("đô đốc 2", Command(action="play", card="AD", target=2)),
    ("đỏ 3 lên 1", Command(action="play", card="R3", target=1)),
    ("blue captain on 2", Command(action="play", card="BC", target=2)),
    ("captain blue on 2", Command(action="play", card="BC", target=2)),
    ("7", Command(number=7)),
    ("7.", Command(number=7)),
])
def test_a_command_line_is_read_in_any_language_case_and_diacritics_ignored(line, move):
    assert read_command(line) == move


@pytest.mark.parametrize("line", ["hello partner", "I will draw next time", "B3 B4", "blue", "merchant 9", "",
                                  "Merci", "no draw", "don't draw", "ne pioche pas", "không rút", "green 5"])
def test_a_line_that_is_talk_courtesy_or_no_whole_move_is_not_a_command(line):
    assert read_command(line) is None


@pytest.mark.parametrize("lang, line, number", [
    ("vi", "đỏ 3", 9), ("vi", "đô đốc lên tàu 1", 8), ("vi", "do 3 len 2", 9), ("vi", "do doc len 1", 8),
    ("vi", "đánh lá đó lên tàu 2", None), ("vi", "đó 3 lên 2", None), ("vi", "xanh là 2 lên 3", None),
    ("vi", "xanh 2 lên 3", None), ("vi", "lá 2", None), ("vi", "đến 3", None), ("vi", "Mình lấy tàu to", None),
])
def test_vietnamese_words_with_diacritics_are_matched_before_folding(lang, line, number):
    """"đó" (that) is not "đỏ" (red), "là" (is) not "lá" (card): only a word typed without any
    diacritic is read folded ("do 3" is red 3); "xanh" alone is blue or green."""
    reading = read(line, lang)
    assert played(reading) == number and (number is not None or reading.move is None)


# ---------------------------------------------------------------- 4. two moves, or none
@pytest.mark.parametrize("lang, line, choices", [
    ("en", "green 2", [3, 4]), ("fr", "le vert 2", [3, 4]), ("vi", "xanh lá 2", [3, 4]), ("en", "G2", [3, 4]),
    ("en", "B1", [5, 6, 7]), ("fr", "attaquer avec le bleu 1", [6, 7]),  # 5 defends: not an attack
    ("en", "attack ship 2", [3, 6, 9]), ("fr", "attaquer le vaisseau 2", [3, 6, 9]),
    ("vi", "tấn công tàu 2", [3, 6, 9]), ("en", "play on 2", [3, 6, 9]), ("en", "Bob's ship 2", [3, 6, 9]),
    ("en", "2 or 3", [2, 3]), ("fr", "2 ou 3", [2, 3]), ("vi", "2 hoặc 3", [2, 3]), ("vi", "nước 2 hay 3", [2, 3]),
    ("en", "2, 3", [2, 3]), ("en", "blue", [5, 6, 7]), ("fr", "le bleu", [5, 6, 7]),
])
def test_when_two_moves_fit_nothing_is_played_and_the_candidates_are_numbered(lang, line, choices):
    reading = read(line, lang)
    assert reading.move is None and reading.choices == choices and reading.problem


def test_a_card_that_fits_two_ships_is_refused_with_both_numbers():
    legal = [{"action": "draw"}, {"action": "play", "card": "B3", "target": 1},
             {"action": "play", "card": "B3", "target": 4}]
    reading = read_reply("B3", legal)
    assert reading.move is None and reading.choices == [2, 3]
    assert reading.problem is not None and "reply with 2 or 3" in reading.problem


@pytest.mark.parametrize("lang, line", [
    ("en", "blue on 4"), ("en", "captain on 2"), ("en", "B3 B4"), ("en", "the blue captain"),
    ("fr", "capitaine sur 2"), ("vi", "thuyền trưởng lên tàu 2"), ("en", "attack my ship with green 2"),
    ("en", "merchant 9"), ("en", "green 5 on 2"), ("en", "draw and play M5"), ("fr", "pioche ou M5"),
])
def test_when_none_fits_nothing_is_played_and_every_move_is_numbered(lang, line):
    reading = read(line, lang)
    assert reading.move is None and reading.choices == EVERY and reading.problem


@pytest.mark.parametrize("lang, line, move", [
    ("en", "attack 7 with G2", {"action": "play", "card": "G2", "target": 7}),
    ("en", "K4 on 2", {"action": "play", "card": "K4", "target": 2}),
    ("en", "M3", {"action": "play", "card": "M3"}),
    ("fr", "Poser votre vaisseau (3 or)", {"action": "play", "card": "M3"}),
    ("vi", "tàu buôn 3", {"action": "play", "card": "M3"}),
    ("vi", "đỏ 3 lên tàu 1", {"action": "play", "card": "R3", "target": 1}),
    ("fr", "capitaine bleu sur 1", {"action": "play", "card": "BC", "target": 1}),
    ("en", "discard M5", {"action": "discard", "card": "M5"}),
])
def test_a_move_named_in_full_that_is_not_legal_goes_to_the_rules_which_say_why(lang, line, move):
    assert read(line, lang).move == move


@pytest.mark.parametrize("line, move", [
    ("draw", {"action": "draw"}), ("đặt Tàu Buôn 5", {"action": "play", "card": "M5"}),
    ("bỏ Tàu Hải Tặc xanh lá 1", {"action": "discard", "card": "G1"}),
])
def test_a_move_named_in_full_when_there_are_no_moves_goes_to_the_rules(line, move):
    assert read_reply(line, []).move == move


@pytest.mark.parametrize("lang, line", [
    ("en", "Attack Cid's ship 2 with Green 2"), ("en", "Attack Bob's ship 2 (5 gold) with Green 2"),
    ("en", "defend my ship 2 with blue 1"), ("fr", "attaquer le vaisseau 2 de Cid avec le vert 2"),
    ("fr", "défendre mon vaisseau 2 avec le bleu 1"), ("vi", "tấn công tàu 2 của Cid bằng xanh lá 2"),
    ("vi", "bảo vệ tàu 3 của tôi bằng xanh dương 1"), ("en", "Attack Bob's ship 3 with Green 2"),
])
def test_a_move_whose_owner_gold_or_my_ship_contradicts_our_label_is_not_played(lang, line):
    """The card and ship name a legal move, but the rest of the line says another ship: a guess."""
    reading = read(line, lang)
    assert reading.move is None and reading.choices == EVERY


@pytest.mark.parametrize("lang, line, number", [
    ("en", "Defend ship 2 with Blue 1", 6), ("en", "attack ship 1 with blue 1", 5),
    ("fr", "défendre le vaisseau 2 avec le bleu 1", 6), ("vi", "tấn công tàu 1 bằng xanh dương 1", 5),
])
def test_attack_or_defend_is_loose_wording_that_an_explicit_ship_number_overrides(lang, line, number):
    assert played(read(line, lang)) == number


@pytest.mark.parametrize("lang, text, choices", [
    ("en", "draw\nM5", [1, 2]), ("en", "2\n3", [2, 3]),
    ("en", "Green 2\nBlue 1\nMerchant ship (5 gold)", [2, 3, 4, 5, 6, 7]),
    ("en", "  - Blue 1\n  - Red 3\n  - Merchant ship (5 gold)", [2, 5, 6, 7, 9]),
    ("en", "Attack Bob's ship 2 (4 gold) with Green 2\nAttack Cid's ship 3 (5 gold) with Green 2", [3, 4]),
    ("fr", "2\njouer le vaisseau 3", [2]), ("vi", "rút bài\nđặt tàu buôn 5", [1, 2]),
])
def test_two_command_lines_naming_different_moves_play_nothing(lang, text, choices):
    reading = read(text, lang)
    assert reading.move is None and reading.choices == choices and reading.problem


@pytest.mark.parametrize("lang, text", [
    ("en", "draw\nBlue 1\nGreen 2"), ("fr", "pioche\nCorsaire bleu 1\nVaisseau (5 or)"),
    ("vi", "rút bài\nTàu Hải Tặc xanh dương 1\nTàu Buôn (5 vàng)"), ("en", "1\nMerchant ship (5 gold)\nnice"),
])
def test_a_card_name_of_our_hand_under_the_writer_move_is_our_email_and_ends_the_text(lang, text):
    reading = read(text, lang)
    assert reading.move == LEGAL[0] and reading.remarks == []


@pytest.mark.parametrize("text", ["Blue 1\ndraw", "Red 3\nBlue 1", "Red 3\nBlue 1\nMerchant ship (5 gold)"])
def test_card_names_alone_or_before_the_move_are_never_taken_for_a_pasted_hand_and_play_nothing(text):
    reading = read(text)
    assert reading.move is None and reading.problem


@pytest.mark.parametrize("lang, text, number", [
    ("en", "draw\ndraw", 1), ("fr", "2\nPoser votre vaisseau (5 or)", 2), ("vi", "1\nrút bài", 1),
    ("en", "2. Play your merchant ship (5 gold)\n2", 2),
])
def test_the_same_move_said_twice_is_played(lang, text, number):
    assert played(read(text, lang)) == number


# ---------------------------------------------------------------- 5. talk
def test_said_is_a_say_line_and_the_rest_of_its_paragraph():
    reading = read("say watch ship 2\nand keep your blue\n\n2\nnice hand")
    assert reading.said == ["watch ship 2", "and keep your blue"] and reading.remarks == ["nice hand"]
    assert reading.move == LEGAL[1]


@pytest.mark.parametrize("lang, text, said", [
    ("en", "Say: well played", ["well played"]), ("en", "tell Bob to wait", ["tell Bob to wait"]),
    ("fr", "dis : bien joué", ["bien joué"]), ("fr", "Dis-moi ce que tu en penses", ["Dis-moi ce que tu en penses"]),
    ("vi", "nói: cẩn thận tàu 2", ["cẩn thận tàu 2"]), ("vi", "nhắn Bob: đợi nhé", ["nhắn Bob: đợi nhé"]),
    ("vi", "nhắn: mình đặt tàu to trước", ["mình đặt tàu to trước"]),
    ("en", "say\ngood luck\nMerci\nall", ["good luck", "all"]),
])
def test_a_line_starting_with_a_say_word_is_said_in_every_language(lang, text, said):
    reading = read(text, lang)
    assert reading.said == said and reading.move is None and reading.problem is None


def test_the_first_command_line_is_the_move_and_every_other_line_is_talk():
    legal = [{"action": "draw"}, {"action": "play", "card": "M5"}]
    reading = read_reply("Nice one!\nM5\nsay watch ship 2", legal)
    assert reading.move == {"action": "play", "card": "M5"}
    assert reading.remarks == ["Nice one!"] and reading.said == ["watch ship 2"]


COURTESY = ["Merci", "Merci !", "thanks!", "Thank you", "Thanks a lot!", "Cảm ơn nhé", "Cảm ơn bạn nhiều",
            "Cheers", "Bises", "Cordialement", "Regards", "Best,", "Hi", "Bonjour", "Chào", "Salut", "Hi Bob,",
            "Thanks again!", "OK", "Merci beaucoup", "Thân", "Bisous", "xoxo", ":)", "👍", "Salut Bob !",
            "Chào cả nhà", "Merci à toi", "s'il te plaît", "Bonne journée", "Kind regards,"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("courtesy", COURTESY)
def test_courtesy_is_never_talk(lang, courtesy):
    reading = read(f"2\n{courtesy}", lang)
    assert reading.move == LEGAL[1] and reading.remarks == [] and reading.said == []


@pytest.mark.parametrize("signed", [
    "Ann", "— Ann", "- Ann", "Cheers, Ann", "Ann S.", "ANN", "Merci, Ann", "-- \nAnn\nCEO, Acme Corp",
    "Thanks,\nAnn Smith\nCEO, Acme Corp\n+1 555 0100", "Sent from my iPhone", "Envoyé de mon iPhone",
    "Gửi từ iPhone của tôi", "Best regards\nAnn Smith\nAcme Corp", "Cordialement,\nAnn\n06 12 34 56 78",
    "__\nAnn Smith | Acme", "Ann\nhttp://ann.example.com",
])
def test_the_writer_name_and_a_signature_are_never_talk(signed):
    reading = read_reply(f"2\n{signed}", LEGAL, labels=labels_for("en"), own_names=("Ann Smith", "Ann", "Smith"))
    assert reading.move == LEGAL[1] and reading.remarks == [] and reading.said == []


@pytest.mark.parametrize("name, line", [("Élodie", "Elodie"), ("Élodie", "élodie —"), ("Nguyễn Văn An", "Văn An"),
                                        ("Nguyễn Văn An", "An")])
def test_the_writer_name_is_recognised_in_any_case_and_diacritics(name, line):
    reading = read_reply(f"2\n{line}", LEGAL, own_names=(name, *name.split()))
    assert reading.remarks == []


def test_the_other_real_talk_is_a_remark_and_move_lines_are_not():
    reading = read("Hi Bob,\nwell played last turn\n2\nI keep my blue for ship 2\nMerci\nAnn")
    assert reading.remarks == ["well played last turn", "I keep my blue for ship 2"] and reading.said == []


@pytest.mark.parametrize("lang, text, remark", [("fr", "je pioche\nde retour le 12/05", "de retour le 12/05"),
                                               ("en", "draw\nback on 12/05", "back on 12/05")])
def test_a_date_under_the_move_is_talk_not_a_second_move(lang, text, remark):
    reading = read(text, lang)
    assert reading.move == LEGAL[0] and reading.remarks == [remark]


def test_a_reading_has_the_fields_the_handler_agreed_on():
    assert [f.name for f in dataclasses.fields(Reading)] == ["move", "problem", "choices", "command", "said",
                                                             "remarks"]


def test_a_line_that_failed_to_be_a_move_is_not_talk():
    reading = read("jouer le vaisseau 3\nbien joué", "fr")
    assert reading.move is None and reading.remarks == ["bien joué"]


@pytest.mark.parametrize("line", [
    "http://korsar.test/m/WzEsMCwiZjc5ZTFiNjI0NmJhZTNlZCIsMCx7ImFjdGlvbiI6ImRyYXcifV0.aw86WA.G5_jX8xlhHTmDCN52Wrs2mA",
    "Reply to play+1-0-0-rvn5dgxrym3rnh5e@korsar.test", "> 1. Draw a card", "> 3",
])
def test_a_quoted_line_or_one_holding_our_links_is_never_talk_nor_a_move(line):
    reading = read(f"2\n{line}")
    assert reading.move == LEGAL[1] and reading.remarks == [] and reading.said == []


def test_talk_alone_is_not_a_move():
    reading = read("what a strange hand I have")
    assert reading.move is None and reading.problem is None and reading.remarks == ["what a strange hand I have"]


# ---------------------------------------------------------------- 6. the problems in the seat's words
@pytest.mark.parametrize("lang, start", [("en", "There is no move 99"), ("fr", "Il n'y a pas de coup 99"),
                                         ("vi", "Không có nước đi số 99")])
def test_a_refusal_is_in_the_seat_language(lang, start):
    with i18n.using(lang):
        reading = read("99", lang)
    assert reading.problem is not None and reading.problem.startswith(start)


# ---------------------------------------------------------------- 7. bounded
def test_a_move_is_looked_for_only_in_the_first_lines_and_characters():
    assert read("\n".join(["we should talk about it"] * commands.COMMAND_LINES + ["2"])).move is None
    assert read("\n".join(["we should talk"] * (commands.COMMAND_LINES - 1) + ["2"])).move == LEGAL[1]
    long_talk = "word " * (commands.COMMAND_CHARS // 5)
    assert read(f"{long_talk}\n2").move is None
    assert read("draw" + " " * commands.MAX_COMMAND_LINE + "please").move is None


def test_talk_is_read_only_up_to_the_bounds():
    reading = read("\n".join(f"line {n} of my novel" for n in range(commands.MAX_LINES * 3)))
    assert len(reading.remarks) <= commands.MAX_LINES
    huge = read("x" * (commands.MAX_TEXT * 10))
    assert sum(len(r) for r in huge.remarks) <= commands.MAX_TEXT


@pytest.mark.parametrize("hostile", ["a " * 50_000, "xanh " * 50_000, "đô " * 50_000, "1 " * 50_000,
                                     "(" * 100_000, "de " * 50_000 + "Bob", "say " * 50_000])
def test_hostile_text_is_read_to_nothing(hostile):
    reading = read(hostile)
    assert reading.move is None


# ---------------------------------------------------------------- traps: nothing or the right move
# (lang, line, expected): a move number, None (nothing is played), or RULES (a move named in full
# that is not legal: the rules refuse it and say why). Any other legal move is a wrong move.
RULES = "rules"
TRAPS: list[tuple[str, str, int | str | None]] = [
    # numbers inside words
    ("fr", "jouer le vaisseau 3", None), ("en", "play the ship 3", None), ("fr", "vaisseau 3", None),
    ("vi", "tàu 3", None), ("fr", "jouer le vaisseau 3 merci", None), ("fr", "je joue 2", None),
    ("en", "play 2", None), ("fr", "pioche 2", None), ("en", "I draw 2 cards", None), ("vi", "rút 2 lá", None),
    ("fr", "tire 2 cartes", None), ("en", "2 cards please", None), ("vi", "lá 2", None), ("en", "draw 1", None),
    ("en", "1 draw", None), ("en", "2nd", None), ("en", "ship 2 is mine", None), ("en", "2026", None),
    ("en", "10:30", None), ("en", "+33 6 12 34 56 78", None), ("fr", "je joue le 2", None),
    ("en", "move 2 on 3", None), ("vi", "đánh 2", None), ("fr", "le vaisseau 2 de Bob", None),
    ("fr", "jouer le vaisseau 5", 2), ("en", "play my 5 ship", 2), ("en", "attack 3 with B1", 7),
    # out of range
    ("en", "0", None), ("en", "99", None), ("fr", "coup 12", None), ("vi", "số 10", None), ("en", "999", None),
    # courtesy only
    ("fr", "Merci", None), ("en", "thanks!", None), ("vi", "Cảm ơn nhé", None), ("fr", "Bises", None),
    ("vi", "Thân", None), ("en", "OK", None), ("en", "Cheers,\nAnn", None), ("fr", "Cordialement,\nAnn", None),
    ("en", "Ann", None), ("en", "Hi Bob,", None),
    # two moves
    ("en", "2 or 3", None), ("fr", "2 ou 3", None), ("vi", "2 hoặc 3", None), ("vi", "số 2 và 3", None),
    ("en", "draw\nM5", None), ("en", "2\n3", None), ("en", "green 2", None), ("en", "G2", None),
    ("en", "B1", None), ("en", "attack 2", None), ("en", "attack ship 2", None), ("en", "play on 2", None),
    ("en", "Green 2\nBlue 1", None), ("en", "  - Green 2\n  - Blue 1\n  - Merchant ship (5 gold)", None),
    ("en", "3. Play your merchant ship (5 gold)", None), ("en", "1. Attack Bob's ship 2 (4 gold) with Green 2", None),
    ("en", "Attack Bob's ship 2 (4 gold) with Green 2\nAttack Cid's ship 3 (5 gold) with Green 2", None),
    ("en", "draw and play M5", None), ("en", "2 3", None),
    # a card not in hand, a ship not on the table
    ("en", "M3", RULES), ("en", "attack 7 with G2", RULES), ("en", "K4 on 2", RULES),
    ("fr", "Poser votre vaisseau (3 or)", RULES), ("vi", "tàu buôn 3", RULES), ("vi", "đỏ 3 lên tàu 1", RULES),
    ("fr", "capitaine bleu sur 1", RULES), ("en", "discard M5", RULES), ("en", "2 gold", RULES),
    ("en", "the blue captain", None), ("en", "captain on 2", None),
    ("en", "blue on 4", None), ("en", "green 5", None), ("en", "merchant 9", None), ("en", "B3 B4", None),
    ("en", "discard", None), ("en", "blue", None), ("fr", "le bleu", None),
    # the owner, the gold or the verb say another move than the card and ship
    ("en", "Attack Cid's ship 2 with Green 2", None), ("en", "Defend ship 2 with Blue 1", 6),
    ("en", "attack ship 1 with blue 1", 5), ("en", "Attack Bob's ship 2 (5 gold) with Green 2", None),
    ("en", "Attack Bob's ship 3 with Green 2", None), ("vi", "bảo vệ tàu 3 của tôi bằng xanh dương 1", None),
    ("en", "defend my ship 2 with blue 1", None), ("fr", "défendre mon vaisseau 3 avec le bleu 1", None),
    # talk that holds move words
    ("en", "I will attack ship 2 next time", None), ("en", "don't draw", None), ("fr", "ne pioche pas", None),
    ("vi", "không rút", None), ("en", "no draw", None), ("en", "Should I draw?", None),
    ("en", "Can you attack ship 2 with green 2?", None), ("en", "Bob attack ship 2", None), ("vi", "tàu đó", None),
    ("vi", "đánh lá đó", None), ("vi", "xanh 2", None), ("vi", "Tôi sẽ tấn công tàu của bạn sau", None),
    ("fr", "Je vais attaquer ton vaisseau plus tard", None), ("en", "say draw", None), ("en", "say 2", None),
    ("en", "tell Bob I play 2", None),
    # quoted or signed: never read
    ("en", "> 2", None), ("en", "-- \n2", None), ("en", "Sent from my iPhone\n2", None), ("en", "Cheers\n2", None),
    ("en", "Ann\n2", None),
]


@pytest.mark.parametrize("lang, text, expected", TRAPS)
def test_a_trap_plays_nothing_or_the_right_move(lang, text, expected):
    reading = read(text, lang)
    if isinstance(expected, int):
        assert reading.move == LEGAL[expected - 1], reading
    elif expected == RULES:
        assert reading.move is not None and reading.move not in LEGAL, reading
    else:
        assert reading.move is None, reading


@pytest.mark.parametrize("order", [("en", "fr", "vi"), ("vi", "fr", "en"), ("fr", "vi", "en")])
def test_no_trap_plays_a_wrong_move_when_every_language_is_read(order):
    """Were a seat's reply read in all three languages, their words colliding once folded."""
    for lang, text, expected in TRAPS:
        reading = read_reply(text, LEGAL, labels=labels_for(lang), languages=order, own_names=("Ann",))
        assert reading.move in ([LEGAL[expected - 1]] if isinstance(expected, int) else [None]) \
            or (expected == RULES and reading.move not in LEGAL), (text, reading)


def test_the_traps_are_at_least_eighty():
    assert len(TRAPS) >= 80


# ---------------------------------------------------------------- every label of every move reads back
def _random_view(seed: int, moves: int, players: int, teams: bool) -> dict[str, Any]:
    rng = random.Random(seed)
    names = ["Ann", "Élodie", "Nguyễn Văn An", "Bob", "Anne-Marie", "Cid", "Dũng", "Zoë"][:players]
    state = engine.new_game(names, teams=teams, seed=seed)
    for _ in range(moves):
        if state.finished:
            break
        state, _events = engine.apply_move(state, state.to_move, rng.choice(engine.legal_moves(state)))
    return engine.player_view(state, state.to_move if state.to_move is not None else 0)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 100_000), moves=st.integers(0, 80),
       table=st.sampled_from([(2, False), (3, False), (5, False), (4, True), (6, True)]),
       lang=st.sampled_from(LANGS))
def test_every_label_of_every_move_reads_back_to_that_move_and_never_to_another(seed, moves, table, lang):
    view = _random_view(seed, moves, *table)
    legal = view["legal_moves"]
    labels = labels_for(lang, legal, view)
    for number, move in enumerate(legal, 1):
        assert read_reply(str(number), legal, labels=labels, languages=languages(lang)).move == move
        for text in {label(move, lang, view), label(move, "en", view)}:
            for copy in (text, f"{number}. {text}", fold(text).upper()):
                exact = read_reply(copy, legal, labels=labels, languages=languages(lang))
                assert exact.move == move, (copy, exact)
                # without our labels, the words alone: that move, or nothing (a name such as "An"
                # that is a word of ours makes the line talk), never another move
                words = read_reply(copy, legal, languages=languages(lang))
                assert words.move == move or words.move not in legal, (copy, words)
                assert not words.choices or number in words.choices, (copy, words)


def _random_state(seed: int, moves: int) -> engine.GameState:
    rng = random.Random(seed)
    state = engine.new_game(["Ann", "Bob", "Cid"][: 2 + seed % 2], seed=seed)
    for _ in range(moves):
        if state.finished:
            break
        state, _ = engine.apply_move(state, state.to_move, rng.choice(engine.legal_moves(state)))
    return state


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 60))
def test_every_move_reads_back_from_its_number_and_from_its_words(seed, moves):
    state = _random_state(seed, moves)
    legal = engine.legal_moves(state)
    for number, move in enumerate(legal, 1):
        assert read_reply(str(number), legal).move == move
        for lang in ("en", "fr"):
            reading = read_reply(move_words(move, lang), legal)
            assert reading.move == move or number in reading.choices, (lang, move, reading)


# ---------------------------------------------------------------- a reply in any charset
def cp1258(text: str) -> bytes:
    """Vietnamese as Windows-1258 writes it: the precomposed letters it has (â, ơ, ư...), each
    tone a combining mark after its letter."""
    out = b""
    for char in unicodedata.normalize("NFC", text):
        try:
            out += char.encode("cp1258")
            continue
        except UnicodeEncodeError:
            pass
        base, *marks = unicodedata.normalize("NFD", char)
        for i, mark in enumerate(marks):  # the mark that makes a letter of the code page with the base
            letter = unicodedata.normalize("NFC", base + mark)
            try:
                out += letter.encode("cp1258") + "".join(marks[:i] + marks[i + 1:]).encode("cp1258")
                break
            except UnicodeEncodeError:
                continue
        else:
            out += (base + "".join(marks)).encode("cp1258")
    return out


VIETNAMESE = "rút bài\nnói: đồng đội ơi, tàu số 3 của tôi đang bị tấn công"


def _message(body: bytes, charset: str, cte: str) -> bytes:
    head = (f"From: Ann <ann@example.com>\r\nTo: play+1-0-0-aaaaaaaaaaaaaaaa@korsar.test\r\n"
            f"Subject: Re: turn\r\nMessage-ID: <m1@example.com>\r\nMIME-Version: 1.0\r\n"
            f"Content-Type: text/plain; charset={charset}\r\nContent-Transfer-Encoding: {cte}\r\n\r\n")
    return head.encode() + body


@pytest.mark.parametrize("charset, cte, encode", [
    ("utf-8", "8bit", lambda t: t.encode("utf-8")),
    ("windows-1258", "8bit", cp1258),
    ("utf-8", "quoted-printable", lambda t: quopri.encodestring(t.encode("utf-8"))),
], ids=["utf-8", "windows-1258", "quoted-printable"])
def test_vietnamese_replies_are_decoded_from_any_charset(charset, cte, encode):
    raw = _message(encode(VIETNAMESE), charset, cte)
    mail = read_message(raw)
    assert mail.text.strip() == VIETNAMESE
    reading = read_reply(mail.text, [{"action": "draw"}])
    assert reading.move == {"action": "draw"}
    assert reading.said == ["đồng đội ơi, tàu số 3 của tôi đang bị tấn công"]
