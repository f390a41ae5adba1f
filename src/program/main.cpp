#include "program/program.hpp"

int main(int argc, char** argv) { program::main_process(argc, argv); }
