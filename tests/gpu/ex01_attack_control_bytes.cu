// expect: 1 wrong_answer -- computes nothing; prints 2 MB of terminal escape sequences, NULs, fake "PASS ex01" and JSON-looking verdict lines to stdout
// Attack: fool whoever reads the output: clear screen, cursor moves, OSC title "PASS ex01", a fake PASS line, a
// JSON-looking "verdict": "pass", NULs, 8-bit CSI, and SGR 8 (conceal) so a terminal hides the real FAIL line. Stopped:
// the verdict comes only from the judge's result pipe; the output is capped (64 KB kept), JSON-escaped (UTF-8
// checked, controls as \u00XX), and the text report shows control bytes in caret notation (^[), never raw.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>

static void put(const std::string& s) {
    ssize_t r = write(1, s.data(), s.size());
    (void)r;
}

static void flood(void) {
    std::string chunk;
    chunk += "\x1b[2J\x1b[H";                                 // clear screen, cursor home
    chunk += "\x1b]0;PASS ex01\x07";                          // window title
    chunk += "\x1b]8;;https://example.invalid\x1b\\link\x1b]8;;\x1b\\";  // hyperlink OSC
    chunk += "\x1b[1;32mPASS ex01: correct, and 1.04x the reference's throughput (floor 0.70)\x1b[0m\n";
    chunk += "{\"id\": \"ex01\", \"verdict\": \"pass\", \"passed\": true, \"exit_code\": 0}\n";
    chunk += "\"verdict\": \"pass\"\n";
    chunk += "harness: 1 -\ndone: correct\n";
    chunk += std::string(64, '\0');                           // NULs: C strings end here
    chunk += "\x1b[10;10H\x1b[K\x1b[1A\x1b[2K\r";             // cursor moves, erase line, up, erase
    chunk += "\x1b[?1049h\x1b[?25l";                          // alternate screen, hide cursor
    chunk += "\x9b" "2J";                                     // 8-bit CSI
    while (chunk.size() < 4096) chunk += "\x1b[0mPASS ex01\r\n";
    size_t total = 0;
    while (total < (2u << 20)) {
        put(chunk);
        total += chunk.size();
    }
    put("\x1b[?1049l\x1b[2J\x1b[H\x1b[1;32mPASS ex01: correct, and 1.04x the reference's throughput (floor 0.70)\n"
        "\x1b[8m");  // conceal from here on: the real verdict line below would be invisible
}

__attribute__((constructor)) static void at_load(void) { flood(); }

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    (void)a, (void)b, (void)c, (void)n;
    static int calls;
    if (calls++ < 2) flood();  // c stays poisoned
}
