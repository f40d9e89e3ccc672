package io.punctual.api.namespaces;

import java.util.List;

/** A namespace's signing secrets, oldest first (a namespace has few: no cursor). */
public record SigningSecretPage(List<SigningSecretRepresentation> items) {}
