"""GET and HEAD never change anything (mail scanners open every link in an email): every GET
route of the app, with the tokens that reach its view (a game under way, a game being set up,
an invitation, "never email me again", "my games"), answers without committing a write."""
from __future__ import annotations

import pytest
from admin_helpers import db_of
from test_bad_input import FIELDS, CommittedWrites, World, build_url

# Pages that only read, but whose views count a visit in a table of their own: none.
WRITERS: set[str] = set()


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_no_get_or_head_of_any_player_route_writes(admin_app, method):
    cfg = admin_app.config["KORSAR"]
    for limit in ("LINKS_PER_ADDRESS_HOUR", "LINKS_PER_IP_HOUR"):
        setattr(cfg, f"LIMIT_{limit}", 10**6)
    world = World(admin_app)
    world.refresh()
    writes = CommittedWrites(db_of(admin_app))
    client = admin_app.test_client()
    seen = set()
    for rule in admin_app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.endpoint.startswith(("admin.", "static", "dev.")):
            continue
        url = build_url(rule, {name: world.valid(rule, name) for name in rule.arguments})
        args = {name: value for (where, name), value in FIELDS[rule.endpoint].items() if where == "args"}
        response = client.open(url, method=method, query_string=args)
        assert response.status_code < 500, (method, url, response.status_code)
        assert writes.take() == [] or rule.endpoint in WRITERS, (method, rule.rule)
        seen.add(rule.endpoint)
    assert {"home.home_page", "new_game.new_game_form", "invites.confirm_page", "invites.proposal_page",
            "invites.cancel_page", "invites.invitation_page", "invites.never_page", "my_games.games_page",
            "seat.seat_actions.leave_page", "seat.seat_actions.rematch_page", "player.confirm_move",
            "my_games.my_data_page", "my_games.my_data_json", "my_games.erase_page"} <= seen
