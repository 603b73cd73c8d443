"""Replies by email: the SMTP receiver and the IMAP poller hand each received message to the
one handler (`handler.handle_message`), which plays its move through the same service as a move
link and answers the seat."""
