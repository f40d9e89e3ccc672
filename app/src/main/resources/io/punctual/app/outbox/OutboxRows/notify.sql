SELECT pg_notify('punctual_outbox', '')
