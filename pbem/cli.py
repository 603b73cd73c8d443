"""`flask --app pbem ...` commands."""
from __future__ import annotations

import click
from flask import Flask
from flask.cli import with_appcontext

from pbem.appctx import config, db


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create or upgrade the database schema to the newest migration (idempotent)."""
    click.echo(_upgrade())
    click.echo("database ready")


def _upgrade() -> str:
    """The schema brought to the newest migration; a schema the models disagree with is a
    one-line error, not a traceback."""
    from pbem.migrations import SchemaMismatch, upgrade_database

    try:
        return upgrade_database(config().DATABASE_URL)
    except SchemaMismatch as exc:
        raise click.ClickException(str(exc)) from exc


@click.command("create-admin")
@click.argument("email")
@with_appcontext
@click.password_option(envvar="ADMIN_PASSWORD", help="Asked on the terminal unless ADMIN_PASSWORD is set.")
def create_admin_command(email: str, password: str) -> None:
    """Create an admin account for the dashboard (or set a new password for it)."""
    from pbem.auth import AdminError, create_admin
    from pbem.db import session_scope

    _upgrade()  # the schema comes from the migrations only
    try:
        with session_scope(db()) as session:
            admin = create_admin(session, email, password)
    except AdminError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"admin {admin.email} ready")


@click.command("worker")
@click.option("--once", is_flag=True, help="Run every due job once (bots, clocks, email) and exit.")
@with_appcontext
def worker_command(once: bool) -> None:
    """Deliver queued email, play due bots and run the clocks (one dedicated process)."""
    from flask import current_app

    from pbem.worker import run_worker

    if not run_worker(current_app._get_current_object(), once=once):  # type: ignore[attr-defined]  # current_app is a LocalProxy
        raise click.ClickException("a worker job failed (see the log above)")


@click.command("inbound")
@click.option("--imap", is_flag=True, help="Poll the IMAP_URL mailbox (the default when IMAP_URL is set).")
@with_appcontext
def inbound_command(imap: bool) -> None:
    """Receive replies by email: SMTP on INBOUND_HOST:INBOUND_PORT, or (IMAP_URL set, or --imap)
    poll that mailbox."""
    if imap or config().IMAP_URL:
        from pbem.inbound.imap import poll_forever

        poll_forever(db(), config())
    else:
        from pbem.inbound.smtp import serve

        serve(db(), config())


@click.command("erase-address")
@click.argument("email")
@click.option("--never", is_flag=True, help="And never email it again: its keyed hash stays on the never-list "
                                            "(an address already on the list stays on it anyway).")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@with_appcontext
def erase_address_command(email: str, never: bool, yes: bool) -> None:
    """Erase an address from every table, as its own "Erase my data" does (docs/privacy.md):
    audited as "cli", without the address. Prints what it did, by counts and a hash prefix."""
    from pbem.addresses import AddressRefused, check_address
    from pbem.db import read_scope, session_scope
    from pbem.games import privacy

    try:
        address = check_address(email)
    except AddressRefused as exc:
        raise click.ClickException(exc.sentence) from None
    with read_scope(db()) as session:
        found = privacy.what_is_held(session, address)
    click.echo(f"{found.seats} seats ({found.games_under_way} in games under way), {found.emails} emails, "
               f"{found.replies} replies, {found.invitations} invitations, {found.proposals} games set up"
               f"{', on the never-list' if found.never_listed else ''}")
    if not yes:
        click.confirm("Erase this address for good?", abort=True)
    with session_scope(db()) as session:
        done = privacy.erase_address(session, config(), address, never=never, actor="cli")
    click.echo(f"erased address {done.tag}: {done.seats} seats renamed, {done.games_handed_to_bots} handed to bots, "
               f"{done.rows_deleted} rows deleted" + ("; its hash stays on the never-list" if done.never_kept else ""))


def init_app(app: Flask) -> None:
    from pbem.games.commands import create_game_command, export_game_command

    app.cli.add_command(create_game_command)
    app.cli.add_command(export_game_command)
    app.cli.add_command(init_db_command)
    app.cli.add_command(worker_command)
    app.cli.add_command(create_admin_command)
    app.cli.add_command(inbound_command)
    app.cli.add_command(erase_address_command)
