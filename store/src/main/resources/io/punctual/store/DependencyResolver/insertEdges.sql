INSERT INTO job_dependencies (job_id, job_scheduled_at, depends_on_id, depends_on_scheduled_at,
                              namespace, condition, kind)
SELECT e.job_id, punctual_ms(e.job_ms), e.depends_on_id, punctual_ms(e.depends_on_ms), e.namespace,
       e.condition, e.kind
FROM unnest(:jobIds, :jobMs, :dependsOnIds, :dependsOnMs, :namespaces, :conditions, :kinds)
     AS e(job_id, job_ms, depends_on_id, depends_on_ms, namespace, condition, kind)
