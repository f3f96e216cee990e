# One place for the warning set every collsim target compiles with.
add_library(collsim_warnings INTERFACE)
target_compile_options(collsim_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow)
