"""Grammar, not string glue (pbem/present/grammar.py): French elision and contraction for a name
or a card entering a sentence, agreement with one winner or several, and the sentences of the
phrasebook, the board and the final breakdown that use them. The French sentences need the
catalogs of this change compiled (make translations)."""
from __future__ import annotations

import engine
import pytest
from engine import explain

from pbem import i18n
from pbem.present import grammar, phrases
from pbem.present.board import board
from pbem.present.final import final_result

NAMES = ["Paul", "Élodie", "Yves", "Hélène"]


# ---------------------------------------------------------------- the French rules
@pytest.mark.parametrize("word, elides", [
    ("Élodie", True), ("Ánh", True), ("Expert bot", True), ("amiral", True), ("Yves", True),
    ("Hélène", True), ("Hugo", True), ("Ève", True), ("Œdipe", True),
    ("Paul", False), ("Yann", False), ("héros", False), ("Hương", False), ("Hồ", False),
    ("Nguyễn Thị Ánh", False), ("capitaine", False), ("", False),
])
def test_french_elides_before_a_vowel_sound_only(word, elides):
    assert grammar.starts_with_vowel_sound(word) is elides


@pytest.mark.parametrize("preposition, phrase, joined", [
    ("de", "Élodie", "d'Élodie"), ("de", "Expert bot", "d'Expert bot"), ("de", "Yves", "d'Yves"),
    ("de", "Hélène", "d'Hélène"), ("de", "Paul", "de Paul"), ("de", "Hương", "de Hương"),
    ("le", "amiral", "l'amiral"), ("le", "corsaire vert 3", "le corsaire vert 3"),
    ("de", "le corsaire", "du corsaire"), ("à", "le capitaine", "au capitaine"),
    ("de", "les vaisseaux", "des vaisseaux"), ("à", "les joueurs", "aux joueurs"),
    ("de", "Le Gall", "de Le Gall"),  # a name's own capital "Le" is no article
    ("de", "\u2068عبد الرحمن\u2069", "de \u2068عبد الرحمن\u2069"),
])
def test_french_elision_and_contraction(preposition, phrase, joined):
    assert grammar.french_join(preposition, phrase) == joined


@pytest.mark.parametrize("code, name, of_name, whose", [
    ("fr", "Élodie", "d'Élodie", "d'Élodie"), ("fr", "Paul", "de Paul", "de Paul"),
    ("en", "Élodie", "of Élodie", "Élodie's"), ("vi", "Élodie", "của Élodie", "của Élodie"),
])
def test_a_name_after_a_noun_or_owning_it_in_each_language(code, name, of_name, whose):
    with i18n.using(code):
        assert grammar.of(name) == of_name and grammar.possessive(name) == whose


@pytest.mark.parametrize("code, card, text", [
    ("fr", "AD", "l'amiral"), ("fr", "BC", "le capitaine bleu"), ("fr", "G3", "le corsaire vert 3"),
    ("en", "AD", "the Admiral"), ("en", "BC", "the Blue captain"), ("en", "G3", "Green 3"),
    ("vi", "AD", "Đô Đốc"),
])
def test_a_card_in_running_text_has_its_article_and_french_lower_case(code, card, text):
    with i18n.using(code):
        assert phrases.card_in_text(card) == text


def test_a_card_chip_reads_as_a_french_list_writes_a_card():
    with i18n.using("fr"):
        assert phrases.card("AD").name == "amiral" and phrases.card("G3").name == "corsaire vert 3"


# ---------------------------------------------------------------- agreement
@pytest.mark.parametrize("code, people, verb, tag", [
    ("fr", 1, "Élodie a gagné", "(victoire)"), ("fr", 2, "Élodie et Paul ont gagné", "(victoire)"),
    ("en", 1, "Élodie won", "(won)"), ("en", 2, "Élodie and Paul won", "(won)"),
    ("vi", 2, "Élodie và Paul đã thắng", "(thắng)"),
])
def test_the_verb_and_the_tag_agree_with_the_winners(code, people, verb, tag):
    with i18n.using(code):
        who = "Élodie" if people == 1 else i18n.gettext("%(first)s and %(last)s", first="Élodie", last="Paul")
        assert grammar.won(who, people) == verb and grammar.won_tag(people) == tag


@pytest.mark.parametrize("code, names, together", [
    ("fr", ["vous", "Paul"], "vous et Paul"), ("en", ["you", "Paul"], "you and Paul"),
    ("vi", ["bạn", "Paul"], "bạn và Paul"), ("fr", ["Paul"], "Paul"),
])
def test_a_team_is_named_with_the_languages_and(code, names, together):
    with i18n.using(code):
        assert grammar.together(names) == together


# ---------------------------------------------------------------- the converted sentences in French
def _view(owner_name: str) -> dict:
    return {"seat": 0, "players": ["Marc", owner_name], "table": [{"id": 3, "owner": 1, "value": 5}]}


OF = {"Élodie": "d'Élodie", "Yves": "d'Yves", "Hélène": "d'Hélène", "Paul": "de Paul"}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("move, sentence", [
    ({"action": "play", "card": "B3", "target": 3},
     "Attaquer le vaisseau 3 {of} (5 pièces d'or) avec le corsaire bleu 3"),
    ({"action": "play", "card": "BC", "target": 3}, "Jouer le capitaine bleu sur le vaisseau 3 {of} (5 pièces d'or)"),
    ({"action": "play", "card": "AD", "target": 3}, "Jouer l'amiral sur le vaisseau 3 {of} (5 pièces d'or)"),
])
def test_french_moves_elide_the_owners_name(name, move, sentence):
    with i18n.using("fr"):
        assert phrases.describe_move(move, _view(name)) == sentence.format(of=OF[name])


@pytest.mark.parametrize("card, text", [("AD", "Défausser l'amiral"), ("RC", "Défausser le capitaine rouge"),
                                        ("G1", "Défausser le corsaire vert 1")])
def test_french_discards_name_the_card_with_its_article(card, text):
    with i18n.using("fr"):
        assert phrases.describe_move({"action": "discard", "card": card}, _view("Paul")) == text


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("event, sentence", [
    ({"kind": "hold", "seat": 1, "ship": 3}, "Le vaisseau 3 est en attente jusqu'au prochain tour {of}."),
    ({"kind": "capture", "seat": 1, "owner": 1, "ship": 3, "value": 5},
     "Le vaisseau 3 {of} est rentré à bon port et lui rapporte 5 pièces d'or."),
    ({"kind": "discard", "seat": 1, "card": "AD"}, "{name} a défaussé l'amiral."),
    ({"kind": "admiral", "seat": 2, "ship": 3, "owner": 1, "value": 5, "card": "AD", "replaced": "BC"},
     "Zoé a joué l'amiral sur le vaisseau 3 {of} (5 pièces d'or). "
     "Le capitaine bleu qu'il remplace quitte la partie."),
])
def test_french_events_elide_the_name(name, event, sentence):
    with i18n.using("fr"):
        assert phrases.describe_event(event, ["Marc", name, "Zoé"], 0) == sentence.format(of=OF[name], name=name)


def _finished_team_game() -> engine.GameState:
    """A team game played to its end by each seat's first legal move."""
    state = engine.new_game(["Élodie", "Marc", "Paul", "Yves"], seed=3, teams=True)
    while not state.finished:
        state, _events = engine.apply_move(state, state.to_move, engine.legal_moves(state)[0])
    return state


def test_a_winning_team_is_plural_on_the_board_and_in_the_final_breakdown():
    state = _finished_team_game()
    view = engine.player_view(state, 1)
    with i18n.using("fr"):
        shown = board(view)
        final = final_result(view, [])
    team = view["winners"][0]
    assert shown["winning_people"] == 2 and " et " in shown["winners"][0] and "&" not in shown["winners"][0]
    winner = next(s for s in final["sides"] if s["side"] == team)
    assert winner["won_tag"] == "(victoire)" and " et " in winner["who"]


# ---------------------------------------------------------------- what the score says
@pytest.mark.parametrize("code, pile, text", [
    ("fr", [7], "1 vaisseau (7 or)"), ("fr", [7, 8, 6], "3 vaisseaux (21 or)"),
    ("en", [7], "1 ship (7 gold)"), ("en", [2, 5], "2 ships (7 gold)"), ("vi", [2, 5], "2 tàu (7 vàng)"),
])
def test_the_score_pile_reads_as_ships_and_gold(code, pile, text):
    state = engine.new_game(["Élodie", "Paul"], seed=1)
    view = engine.player_view(state, 0)
    view["score_piles"][1] = pile
    with i18n.using(code):
        assert board(view)["players"][1]["pile_text"] == text
        assert board(view)["players"][0]["pile_text"] is None  # nothing yet: the page says so


def test_the_legend_says_the_ships_in_hand_have_been_subtracted_once_the_game_is_over(app):
    from flask import render_template
    state = _finished_team_game()
    with app.test_request_context(), i18n.using("fr"):
        page = render_template("shared/board.html", board=board(engine.player_view(state, 0)))
    assert "les vaisseaux restés en main ont été déduits" in page and "seront" not in page


@pytest.mark.parametrize("code, seat, text", [
    ("fr", 1, "En attente jusqu'au prochain tour d'Élodie."), ("fr", 0, "En attente jusqu'à votre prochain tour."),
    ("en", 1, "On hold until Élodie's next turn."),
    ("vi", 1, "Tạm hoãn: chưa ai lấy được tàu trước lượt sau của Élodie."),
])
def test_a_ship_on_hold_names_whose_turn_it_waits_for(code, seat, text):
    state = engine.new_game(["Marc", "Élodie"], seed=1)
    view = engine.player_view(state, 0)
    view["table"] = [{"id": 3, "owner": 1, "value": 5, "on_hold_for": seat, "sides": [], "leader": None,
                      "strongest_side": None}]
    with i18n.using(code):
        assert board(view)["table"][0]["on_hold"] == text


@pytest.mark.parametrize("code, name, greeting", [
    ("vi", "Nguyễn Thị Ánh", "Xin chào Ánh,"), ("fr", "Élodie Dûpont", "Bonjour Élodie Dûpont,"),
    ("en", "Jack Rackham", "Hello Jack Rackham,"),
])
def test_a_greeting_calls_a_vietnamese_reader_by_the_given_name(code, name, greeting):
    from pbem.mail.render import environment  # the emails' own environment
    with i18n.using(code):
        assert environment().get_template("partials/greeting.txt").render(name=name).strip() == greeting


@pytest.mark.parametrize("code, name, called", [
    ("vi", "Nguyễn Thị Ánh", "Ánh"), ("vi", "Trần Văn Bình", "Bình"), ("vi", "Élodie Dûpont", "Élodie Dûpont"),
    ("vi", "Ánh", "Ánh"), ("fr", "Nguyễn Thị Ánh", "Nguyễn Thị Ánh"), ("en", "Anne Bonny", "Anne Bonny"),
])
def test_a_vietnamese_greeting_calls_a_vietnamese_full_name_by_its_given_name_only(code, name, called):
    with i18n.using(code):
        assert i18n.addressed_name(name) == called


# ---------------------------------------------------------------- a label after a colon
@pytest.mark.parametrize("code, label, inside", [
    ("fr", "Jouer l'amiral sur votre vaisseau 3", "jouer l'amiral sur votre vaisseau 3"),
    ("fr", "Élever", "élever"),
    ("vi", "Rút một lá bài", "rút một lá bài"),
    ("en", "Draw a card", "Draw a card"),  # English keeps its capital after a colon
])
def test_a_move_label_after_a_colon_starts_in_lower_case_in_french_and_vietnamese(code, label, inside):
    with i18n.using(code):
        assert i18n.in_sentence(label) == inside


@pytest.mark.parametrize("code, subject, body, listed", [
    ("fr", "[Korsar] La mer\u00a0: coup joué (jouer l'amiral sur votre vaisseau 3)",
     "Coup joué\u00a0: jouer l'amiral sur votre vaisseau 3.", "Coup 4\u00a0: jouer l'amiral sur votre vaisseau 3"),
    ("en", "[Korsar] La mer: played: Play the Admiral on your ship 3",
     "Played: Play the Admiral on your ship 3.", "Move 4: Play the Admiral on your ship 3"),
])
def test_the_played_emails_put_the_move_in_the_sentence(code, subject, body, listed):
    from pbem.mail.render import environment  # the emails' own environment
    env = environment()
    with i18n.using(code):
        label = phrases.describe_move({"action": "play", "card": "AD", "target": 3},
                                      {"seat": 0, "players": ["Marc", "Élodie"],
                                       "table": [{"id": 3, "owner": 0, "value": None}]})
        assert label[0].isupper()  # the label itself, alone on its line or a button, keeps its capital
        game = {"name": "La mer"}
        assert env.get_template("reply_played.subject.txt").render(game=game, played=label).strip() == subject
        line = '_("Played: %(move)s.", move=played|in_sentence)'  # the text part's first line
        assert line in env.loader.get_source(env, "reply_played.txt")[0]
        assert env.from_string("{{ " + line + " }}").render(played=label) == body
        forced = env.get_template("partials/played_for_you.txt").render(played_for_you=[{"number": 4, "text": label}],
                                                                      game_url="https://k.test/g")
        assert listed in forced


def test_the_confirmation_page_title_puts_the_move_after_its_colon_in_lower_case(app):
    with app.app_context(), i18n.using("fr"):
        title = app.jinja_env.from_string('{{ _("Confirm your move: %(move)s", move=m|in_sentence) }}')
        assert title.render(m="Piocher une carte") == "Confirmez votre coup\u00a0: piocher une carte"


# ---------------------------------------------------------------- never the same name twice
VOWEL_NAMES = ["Élodie", "Ông Anh", "Hương", "Yves", "Anne-Sophie"]


@pytest.mark.parametrize("name", VOWEL_NAMES)
@pytest.mark.parametrize("code, sentence", [
    ("fr", "{name} a joué le corsaire bleu 3 sur son propre vaisseau 3 (5 pièces d'or)."),
    ("vi", "{name} đã đánh Tàu Hải Tặc xanh dương 3 lên tàu 3 của chính mình (5 vàng)."),
    ("en", "{name} played Blue 3 on their own ship 3 (5 gold)."),
])
def test_a_player_defending_their_own_ship_is_named_once(name, code, sentence):
    event = {"kind": "pirate", "seat": 1, "card": "B3", "ship": 3, "owner": 1, "value": 5}
    with i18n.using(code):
        text = phrases.describe_event(event, ["Marc", name], 0)
        admin = phrases.describe_event(event, ["Marc", name], None)  # the admin's log: nobody is "you"
    assert text == sentence.format(name=name) == admin
    assert text.count(name) == 1 and "d'" + name not in text


@pytest.mark.parametrize("name", VOWEL_NAMES)
@pytest.mark.parametrize("code, once", [
    ("fr", "{name} a gagné le combat pour son propre vaisseau 3 et marque ses 5 pièces d'or."),
    ("en", "{name} won the fight for their own ship 3 (5 gold) and scores 5 gold."),
    ("vi", "{name} đã thắng trận giành tàu 3 của chính mình (5 vàng) và được 5 vàng."),
])
def test_an_owner_winning_the_fight_for_their_ship_is_named_once(name, code, once):
    moves = [[{"kind": "pirate", "seat": 0, "card": "B3", "ship": 3, "owner": 1, "value": 5, "attack": True}],
             [{"kind": "capture", "seat": 1, "owner": 1, "ship": 3, "value": 5}]]
    with i18n.using(code):
        sentence = phrases.event_sentences(moves, ["Marc", name], 0)[1][0]
    assert sentence == once.format(name=name) and sentence.count(name) == 1


@pytest.mark.parametrize("name", VOWEL_NAMES)
@pytest.mark.parametrize("code, home, safe", [
    ("fr", "il reviendra à {name} au début de son prochain tour",
     "Le vaisseau 3 {of} est rentré à bon port et lui rapporte 5 pièces d'or."),
    ("en", "it goes home to {name} at the start of their next turn",
     "{name}'s ship 3 (5 gold) came home safely, scoring 5 gold."),
])
def test_a_ship_going_home_names_its_owner_once(name, code, home, safe):
    of = grammar.french_join("de", name)
    with i18n.using(code):
        look = phrases.outlook_text(explain.Outlook(code="unattacked", seat=1), {"id": 3},  # type: ignore[arg-type]
                                    lambda seat: name, 0)
        settled = phrases.describe_event({"kind": "capture", "seat": 1, "owner": 1, "ship": 3, "value": 5},
                                         ["Marc", name], 0)
    assert home.format(name=name) in look and look.count(name) == 1
    assert settled == safe.format(name=name, of=of) and settled.count(name) == 1


# ---------------------------------------------------------------- a list of names as the subject
@pytest.mark.parametrize("code, people, names, line", [
    ("fr", 1, "Élodie", "Vainqueur\u00a0: Élodie"),
    ("fr", 2, "Élodie et Ông Anh", "Vainqueurs\u00a0: Élodie et Ông Anh"),
    ("en", 1, "Élodie", "Winner: Élodie"), ("en", 2, "Élodie and Ông Anh", "Winners: Élodie and Ông Anh"),
    ("vi", 2, "Élodie và Ông Anh", "Người thắng: Élodie và Ông Anh"),
])
def test_the_winners_line_agrees_with_how_many_people_won(code, people, names, line):
    with i18n.using(code):
        assert i18n.ngettext("Winner: %(name)s", "Winners: %(name)s", people, name=names) == line
        assert i18n.ngettext("Winner: %(name)s.", "Winners: %(name)s.", people, name=names) == line + "."


@pytest.mark.parametrize("code, people, said", [
    ("fr", 1, "Élodie a gagné"), ("fr", 2, "Élodie et Ông Anh ont gagné"),
    ("fr", 3, "Élodie, Ông Anh et Yves ont gagné"),
    ("en", 3, "Élodie, Ông Anh and Yves won"),
])
def test_won_agrees_with_one_or_several_names(code, people, said):
    with i18n.using(code):
        who = grammar.together(["Élodie", "Ông Anh", "Yves"][:people])
        assert grammar.won(who, people) == said


@pytest.mark.parametrize("code, shared", [("fr", "vous et Paul"), ("en", "you and Paul"), ("vi", "bạn và Paul")])
def test_a_shared_win_is_one_list_of_names_never_a_comma_list(code, shared):
    state = engine.new_game(["Élodie", "Paul", "Yves"], seed=1)
    view = engine.player_view(state, 0)
    view["finished"], view["winners"] = True, [0, 1]
    with i18n.using(code):
        shown = board(view)
    assert shown["shared_win"] == shared and shown["winning_people"] == 2


def test_a_shared_team_win_names_each_team_as_one():
    state = _finished_team_game()
    view = engine.player_view(state, 1)
    view["winners"] = [0, 1]
    with i18n.using("fr"):
        shown = board(view)
    assert shown["shared_win"].count(" et ") == 2 and ", " in shown["shared_win"]


def test_my_games_agrees_winner_with_a_winning_team(app):
    from game_helpers import cfg_of, db_of, start_game
    from sqlmodel import select
    from test_seat_actions import play_to_the_end

    from pbem.db import session_scope
    from pbem.games import my_games
    from pbem.models import Game, Seat
    game_id = start_game(app, ["Ann <ann@example.com>", "bot:greedy", "bot:random", "bot:greedy"], teams=True, seed=2)
    play_to_the_end(app, game_id)
    with session_scope(db_of(app)) as s, i18n.using("fr"):
        seats = list(s.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)))
        entry = my_games._entry(cfg_of(app), s.get(Game, game_id), seats[0], seats)
    assert entry.winning_people == 2 and " et " in entry.winners_text


# ---------------------------------------------------------------- the walk's fixes
@pytest.mark.parametrize("code, line", [
    ("fr", "vous et Élodie (0 or)\u202f; Paul et Yves (0 or)"),
    ("en", "you and Élodie 0 gold; Paul and Yves 0 gold"),
])
def test_the_teams_gold_line_uses_each_languages_separator(code, line):
    state = engine.new_game(["Marc", "Élodie", "Paul", "Yves"], seed=1, teams=True)
    with i18n.using(code):
        assert board(engine.player_view(state, 0))["teams_text"] == line


@pytest.mark.parametrize("code, reminders, said", [
    ("fr", "50", "Un rappel par e\u2011mail à 50\u00a0% du délai."),
    ("fr", "50,85", "Des rappels par e\u2011mail à 50\u00a0% et 85\u00a0% du délai."),
    ("en", "50,85", "Reminders by email when 50% and 85% of that time have gone."),
])
def test_the_reminders_sentence_agrees_with_how_many_reminders(code, reminders, said):
    from pbem.letters.invitations import clock_sentences
    from pbem.models import Proposal
    proposal = Proposal(creator_email="a@example.com", reminders=reminders, deadline_hours=72)
    with i18n.using(code):
        assert said in [s.replace("\u202f", "\u00a0") for s in clock_sentences(proposal)]


@pytest.mark.parametrize("code, subject", [
    ("vi", "[Korsar] Hội An: đến lượt bạn, Ánh"), ("fr", "[Korsar] Hội An\u00a0: à vous de jouer, Nguyễn Thị Ánh"),
])
def test_a_turn_subject_calls_a_vietnamese_reader_by_the_given_name(code, subject):
    from pbem.mail.render import environment  # the emails' own environment
    with i18n.using(code):
        text = environment().get_template("turn.subject.txt").render(game={"name": "Hội An"},
                                                                      board={"you": "Nguyễn Thị Ánh"})
    assert text.strip() == subject


@pytest.mark.parametrize("code, said", [("en", "\u201cnope\u201d is not"), ("fr", "\u00ab\u202fnope\u202f\u00bb n"),
                                        ("vi", "\u201cnope\u201d")])
def test_an_address_refused_is_said_back_in_the_readers_quotation_marks(code, said):
    from pbem import addresses, i18n
    with i18n.using(code):
        sentence = addresses.AddressRefused(addresses.NOT_AN_ADDRESS, "nope").sentence
    assert said in sentence and "'nope'" not in sentence


@pytest.mark.parametrize("code, text_line, html_line", [
    ("en", "Élodie: hold on", "Élodie: hold on"),
    ("fr", "Élodie\u00a0: hold on", "Élodie\u00a0: hold on"),
    ("vi", "Élodie: hold on", "Élodie: hold on"),
])
def test_a_partners_words_follow_their_name_with_the_languages_colon(code, text_line, html_line):
    from pbem.mail.render import environment
    heard = [{"who": "Élodie", "text": "hold on"}]
    with i18n.using(code):
        text = environment().get_template("partials/reply_notes.txt").render(heard=heard)
        html = environment().get_template("partials/reply_notes.html").render(heard=heard)
    assert text_line in text and html_line in html


def test_a_partners_words_are_escaped_in_the_html_part():
    from pbem.mail.render import environment
    with i18n.using("fr"):
        html = environment().get_template("partials/reply_notes.html").render(
            heard=[{"who": "<b>Ève</b>", "text": "<script>x</script>"}])
    assert "<script>" not in html and "&lt;b&gt;Ève&lt;/b&gt;\u00a0: &lt;script&gt;" in html


@pytest.mark.parametrize("code, said", [
    ("en", "Green and Red, the only colours you hold"),
    ("fr", "(vert et rouge)"),
    ("vi", "màu xanh lá và đỏ"),
])
def test_colours_inside_a_sentence_are_lower_case_outside_english(code, said):
    reason = explain.Blocked("colours_taken", 3, colours=("green", "red"))
    with i18n.using(code):
        assert said in phrases.blocked_text(reason, {"seat": 0, "players": ["Ann", "Bob"], "teams": False})


ANOTHER_SEATS_VIEW = {"seat": 1, "players": ["Ann", "Bob"],
                      "table": [{"id": 3, "owner": 1, "value": 5}, {"id": 4, "owner": 0, "value": 2}]}


@pytest.mark.parametrize("move, reader, label", [
    ({"action": "play", "card": "M4"}, 1, "Play your merchant ship (4 gold)"),  # the mover's own label
    ({"action": "play", "card": "M4"}, 0, "Play a merchant ship (4 gold)"),
    ({"action": "play", "card": "B3", "target": 3}, 0, "Defend their own ship 3 (5 gold) with Blue 3"),
    ({"action": "play", "card": "B3", "target": 4}, 0, "Attack your ship 4 (2 gold) with Blue 3"),
    ({"action": "play", "card": "B3", "target": 4}, None, "Attack Ann's ship 4 (2 gold) with Blue 3"),
])
def test_another_seats_move_is_worded_for_its_reader_not_as_the_readers_own(move, reader, label):
    """The analysis of a finished game lists every player's moves: Bob's are not "your" to Ann."""
    with i18n.using("en"):
        assert phrases.describe_move(move, ANOTHER_SEATS_VIEW, reader) == label
