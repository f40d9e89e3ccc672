package io.punctual.api.keys;

import java.util.List;

/** A page of keys and the cursor of the next one (null at the end). */
public record KeyPage(List<KeyRepresentation> items, String nextCursor) {}
