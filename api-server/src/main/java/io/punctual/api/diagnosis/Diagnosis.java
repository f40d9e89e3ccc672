package io.punctual.api.diagnosis;

import java.util.List;

/** The body of {@code GET /api/v1/jobs/{id}/diagnosis}. */
public record Diagnosis(String jobId, String status, List<Reason> reasons) {}
