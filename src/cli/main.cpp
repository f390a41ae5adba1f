#include "cli/app.hpp"

int main(int argc, char** argv) { cli::main_process(argc, argv); }
