/* A library that needs_dependency.c links against; the test deletes it before loading. */
int apphost_fixture_stub_answer(void) { return 0; }
