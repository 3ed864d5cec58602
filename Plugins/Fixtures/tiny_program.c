/* A program, not a library: built as a PIE and as a non-PIE executable. */
int main(void) { return 0; }
