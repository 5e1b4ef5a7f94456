/* A library that is not the student's: a classmate's compiled reference, a
 * prebuilt .so kept in the student's exercises/ directory (tests/runner_box.sh
 * puts copies where tests/standin/hostile.c looks for them, and hostile.c
 * carries its bytes to load from memory). Its solve is vector_add's. */
void solve(const float *a, const float *b, float *c, int n) {
    for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
}
const char *decoy_name(void) { return "decoy"; }
