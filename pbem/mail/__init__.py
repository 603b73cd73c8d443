"""Email: rendering templates into messages, the outbox, and SMTP delivery."""
