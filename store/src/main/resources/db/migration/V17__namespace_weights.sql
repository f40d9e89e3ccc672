-- Punctual schema, version 17: a weight per namespace, its share of the workers' free slots while
-- several namespaces have due jobs (docs/architecture.md, Fairness between namespaces). Workers read
-- it with the namespaces' active flags, every worker.namespaceRefresh. A namespace without a row has
-- weight 1, as every existing row gets here.
ALTER TABLE namespaces
    ADD COLUMN weight integer NOT NULL DEFAULT 1,
    ADD CONSTRAINT namespaces_weight_check CHECK (weight BETWEEN 1 AND 1000);
