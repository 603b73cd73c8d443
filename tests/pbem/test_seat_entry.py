"""One entry for the pages reached by a seat's token (pbem/web/seat.py): every route under
/g/<token> is nested in the blueprint 'seat', so a token that does not work gets the one error
page on every one of them, in the same words, and nothing is changed."""
from __future__ import annotations

import pytest
from flask import template_rendered
from game_helpers import cfg_of, seats, start_game

from pbem import links

ANN, BOB = "Ann <ann@example.com>", "Bob <bob@example.com>"


def _seat_routes(app) -> list[tuple[str, str]]:
    """(rule, method) of every route a seat's token opens."""
    routes = []
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/g/"):
            routes += [(rule.rule, method) for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})]
    return routes


def _rendered(app, client, path: str, method: str) -> tuple[int, str, list[str]]:
    templates: list[str] = []

    def record(_sender, template, context, **_extra):  # type: ignore[no-untyped-def]
        templates.append(template.name)

    with template_rendered.connected_to(record, app):
        response = client.open(path, method=method)
    return response.status_code, response.get_data(as_text=True), templates


def test_every_route_of_a_seats_token_goes_through_the_one_entry(app) -> None:
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules() if rule.rule.startswith("/g/")}
    assert len(_seat_routes(app)) >= 14
    assert all(endpoint.startswith("seat.") for endpoint in endpoints), endpoints


@pytest.mark.parametrize("kind", ["tampered", "revoked", "gone"])
def test_a_token_that_does_not_work_gets_the_one_error_page_on_every_seat_route(app, client, kind) -> None:
    cfg = cfg_of(app)
    game_id = start_game(app, [ANN, BOB], seed=3)
    nonce = seats(app, game_id)[0].link_nonce
    token = {
        "tampered": links.sign_seat(cfg, game_id, 0, nonce)[:-2] + "zz",
        "revoked": links.sign_seat(cfg, game_id, 0, "an-older-nonce"),
        "gone": links.sign_seat(cfg, game_id + 1000, 0, nonce),
    }[kind]
    status, sentence = {
        "tampered": (400, "This game page link is damaged or was not made by us."),
        "revoked": (403, "This link has been replaced by a newer one"),
        "gone": (404, "This game does not exist any more."),
    }[kind]
    for rule, method in _seat_routes(app):
        path = rule.replace("<token>", token)
        code, html, templates = _rendered(app, client, path, method)
        assert code == status, (method, path, code)
        assert templates == ["error.html"], (method, path, templates)
        assert f'data-status="{status}"' in html and sentence in html, (method, path)
        assert "Nothing was changed." in html, (method, path)
    assert seats(app, game_id)[0].link_nonce == nonce


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("kind", ["tampered", "revoked", "gone"])
def test_a_move_link_that_does_not_work_gets_the_entrys_one_error_page_without_a_way_in(app, client, kind,
                                                                                        method) -> None:
    cfg = cfg_of(app)
    game_id = start_game(app, [ANN, BOB], seed=3)
    nonce = seats(app, game_id)[0].link_nonce
    token = {
        "tampered": links.sign_move(cfg, game_id, 0, nonce, 0, {"action": "draw"})[:-2] + "zz",
        "revoked": links.sign_move(cfg, game_id, 0, "an-older-nonce", 0, {"action": "draw"}),
        "gone": links.sign_move(cfg, game_id + 1000, 0, nonce, 0, {"action": "draw"}),
    }[kind]
    status, sentence = {
        "tampered": (400, "This link is damaged or was not made by us."),
        "revoked": (403, "This link has been replaced by a newer one"),
        "gone": (404, "This game does not exist any more."),
    }[kind]
    code, html, templates = _rendered(app, client, f"/m/{token}", method)
    assert (code, templates) == (status, ["error.html"])
    assert f'data-status="{status}"' in html and sentence in html and "Nothing was changed." in html
    assert 'href="/g/' not in html  # it proved nothing: no way in
    assert seats(app, game_id)[0].link_nonce == nonce


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_refused_move_gets_the_entrys_one_error_page_with_the_way_to_the_game_page(app, client, method) -> None:
    cfg = cfg_of(app)
    game_id = start_game(app, [ANN, BOB], seed=3)
    seat = seats(app, game_id)[0]
    token = links.sign_move(cfg, game_id, seat.position, seat.link_nonce, 99, {"action": "draw"})  # an old version
    code, html, templates = _rendered(app, client, f"/m/{token}", method)
    assert (code, templates) == (409, ["error.html"])
    assert "Open your game page" in html and 'href="/g/' in html
