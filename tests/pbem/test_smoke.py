from sqlalchemy import inspect


def test_schema_has_the_tables(app):
    names = set(inspect(app.extensions["korsar_db"]).get_table_names())
    assert {"game", "seat", "move", "outbox"} <= names


def test_smtp_server_fixture_receives_mail(smtp_server):
    import smtplib

    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=5) as s:
        s.sendmail("a@x.test", ["b@x.test"], b"Subject: hi\r\n\r\nbody\r\n")
    assert smtp_server.to("b@x.test")[0]["Subject"] == "hi"
