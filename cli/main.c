/* main.c — placeholder entry point (replaced by the CLI). */
int main(void) { return 0; }
