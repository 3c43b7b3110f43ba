/* For null_ptr.sh: the declaration of the PW_RT_FAIL target. */
void my_fail(const char *what, const char *name);
