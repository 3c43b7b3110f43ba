/* codegen/main.c - the planwrap executable: everything is in cg_main. */
#include "codegen/codegen.h"

int main(int argc, char **argv) {
    return cg_main(argc, argv);
}
