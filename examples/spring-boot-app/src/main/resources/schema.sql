-- The application's own tables, beside Punctual's (which punctual.migrate creates).
CREATE TABLE IF NOT EXISTS orders (
  id           bigserial PRIMARY KEY,
  sku          text        NOT NULL,
  quantity     int         NOT NULL,
  confirmed_at timestamptz
);

CREATE TABLE IF NOT EXISTS stock (
  sku       text PRIMARY KEY,
  available int  NOT NULL
);

INSERT INTO stock (sku, available) VALUES ('widget', 10) ON CONFLICT DO NOTHING;
