"""The scheduled side: turn deadlines, reminders, quiet hours, timeouts, vacations."""
