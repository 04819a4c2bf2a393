// multisig_use.cpp — multisig_use.c compiled as C++: the generated header (and kc.h)
// must compile as C++ with -Wall -Wextra -Werror as well.
#include "multisig_use.c"
