/* See LICENSE file for copyright and license details. */
/*
 * main.c: a program's main(), which calls LT_MAIN, its main function
 * (tools/PROG/PROG.c's PROG_main); the Makefile builds one for each
 * program.  ltchain(1) calls the same functions, several in a process.
 */
#include "lt.h"

int
main(int argc, char *argv[])
{
	return LT_MAIN(argc, argv);
}
