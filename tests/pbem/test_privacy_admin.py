"""An admin erases an address for a person who asked by other means (the dashboard's "Erase an
address", the CLI's `erase-address`): the address typed, what would go shown, then erased as
from /me, audited by the admin without the address."""
from __future__ import annotations

from admin_helpers import audit_actions, cfg_of, db_of
from privacy_world import ZED, ZED_PLAIN, build_world, forms_of_zed, where_found
from sqlmodel import Session, col, select

from pbem.auth import create_admin
from pbem.db import session_scope
from pbem.games import privacy
from pbem.mail import suppression
from pbem.models import AdminUser, AuditLog


def test_the_admin_sees_what_would_go_then_erases(admin_app, admin_client, smtp_server):
    build_world(admin_app, smtp_server, admin_app.test_client())
    form = admin_client.get("/admin/erase")
    assert form.status_code == 200 and 'name="email"' in form.text
    preview = admin_client.post("/admin/erase", data={"email": ZED_PLAIN})
    assert preview.status_code == 200 and "data-erase-preview" in preview.text
    assert "2 seats (1 in games under way)" in preview.text
    assert where_found(admin_app, [ZED.lower()])  # the preview changed nothing
    done = admin_client.post("/admin/erase", data={"email": ZED_PLAIN, "confirm": "yes", "never": "on"})
    assert done.status_code == 303
    assert where_found(admin_app, forms_of_zed()) == []
    with Session(db_of(admin_app)) as s:
        assert suppression.is_suppressed(s, ZED)
        row = s.exec(select(AuditLog).where(col(AuditLog.action) == "erase_address")).one()
    assert row.actor == "boss@korsar.test"
    assert row.detail == f"erased address {privacy.address_tag(cfg_of(admin_app), ZED)}"
    assert "erase_address" in audit_actions(admin_app)


def test_a_malformed_address_is_refused_with_the_form(admin_app, admin_client):
    response = admin_client.post("/admin/erase", data={"email": "not an address", "confirm": "yes"})
    assert response.status_code == 422 and 'name="email"' in response.text


def test_the_cli_erases_an_address_and_audits_it_as_cli(app, smtp_server, client, cheap_hashing):
    build_world(app, smtp_server, client)
    with session_scope(db_of(app)) as s:  # the person is an admin too: the account goes with it
        create_admin(s, ZED_PLAIN, "correct horse battery")
    result = app.test_cli_runner().invoke(args=["erase-address", "ZEBULON.QUIXOTE@example.com", "--yes"])
    assert result.exit_code == 0, result.output
    assert "2 seats (1 in games under way)" in result.output
    assert "zebulon" not in result.output.split("\n", 1)[1].lower()
    assert where_found(app, forms_of_zed()) == []
    with Session(db_of(app)) as s:
        assert not suppression.is_suppressed(s, ZED)
        assert s.exec(select(AuditLog.actor).where(col(AuditLog.action) == "erase_address")).one() == "cli"
        assert s.exec(select(AdminUser)).all() == []


def test_the_cli_asks_before_erasing(app, smtp_server, client):
    build_world(app, smtp_server, client)
    result = app.test_cli_runner().invoke(args=["erase-address", ZED_PLAIN], input="n\n")
    assert result.exit_code != 0
    assert where_found(app, [ZED.lower()])
