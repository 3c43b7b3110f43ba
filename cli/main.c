/* cli/main.c - the planwrap executable: everything is in cli_main. */
#include "cli/cli.h"

int main(int argc, char **argv) {
    return cli_main(argc, argv);
}
