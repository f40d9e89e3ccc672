package io.punctual.requests;

/** One invalid field of a request, named by its path ({@code "jobs[3].runAt"}). */
public record FieldError(String field, String message) {}
