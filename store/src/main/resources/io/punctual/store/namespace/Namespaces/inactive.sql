SELECT name FROM namespaces WHERE NOT active
