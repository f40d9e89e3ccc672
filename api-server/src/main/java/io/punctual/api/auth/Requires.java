package io.punctual.api.auth;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The permission a resource method needs. Every resource method of the API carries one (an
 * architecture test checks it); the authorizing filter refuses a key whose role lacks it with 403,
 * and a method without one is refused to every key but an admin's.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Requires {
  Permission value();
}
