package io.punctual.api.jobs;

import java.util.List;

/** The {@code {"items": [...]}} envelope of lists. */
public record Items<T>(List<T> items) {}
