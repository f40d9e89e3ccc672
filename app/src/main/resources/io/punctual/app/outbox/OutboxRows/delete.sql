DELETE FROM punctual_outbox WHERE id = ?
