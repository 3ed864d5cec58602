/* A shared library that exports something, but not apphost_entry. */
int not_an_apphost_guest(void) { return 42; }
