# gpucourse: a CUDA course in the terminal.
#   make            build build/gpucourse
#   make run        build and start the course
#   make test       the tests that need no GPU (CI)
#   make test-gpu   the tests that need a Hopper GPU
#   make install    PREFIX=/usr/local DESTDIR= (course data in PREFIX/share/gpucourse)

PREFIX ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0

CC ?= cc
CFLAGS ?= -O2 -g
# libyaml is linked statically so that the binary runs on GPU machines without libyaml.
YAML_LIBS ?= -Wl,-Bstatic -lyaml -Wl,-Bdynamic
CMOCKA_LIBS ?= -lcmocka
# The terminal app: ncursesw (on every GPU machine), and cmark-gfm (GitHub's
# CommonMark, for the lessons' tables) linked statically for the same reason
# as libyaml.
NCURSES_CFLAGS ?= $(shell pkg-config --cflags ncursesw 2>/dev/null)
NCURSES_LIBS ?= $(shell pkg-config --libs ncursesw 2>/dev/null)
CMARK_LIBS ?= -Wl,-Bstatic -lcmark-gfm-extensions -lcmark-gfm -Wl,-Bdynamic
WARN := -std=c11 -Wall -Wextra -Wshadow -Wno-missing-field-initializers
ALL_CFLAGS := $(WARN) $(CFLAGS) -DGPUCOURSE_VERSION='"$(VERSION)"' -MMD -MP
# SHA-256 for the build records' digests (src/util.c): Nettle, linked in statically as libyaml is,
# so that a build carried to another machine needs neither there.
NETTLE_LIBS ?= -Wl,-Bstatic -lnettle -Wl,-Bdynamic
LDLIBS := $(YAML_LIBS) $(NETTLE_LIBS) -ldl -lm

B := build
# The GPU lock directory every gpucourse on the machine uses by default
# (grader/gpulock.h): one fixed path whatever the PREFIX, made by make install.
LOCK_DIR := /var/lib/gpucourse/locks
CORE_SRCS := src/util.c src/proc.c src/course.c src/scaffold.c src/yamlguard.c src/progress.c src/workspace.c \
             grader/toolchain.c grader/gpuprobe.c grader/phases.c grader/grader.c grader/judge.c grader/checks.c grader/decide.c grader/libcache.c grader/trace.c grader/sass.c grader/evidence.c grader/kernels.c grader/diagnose.c grader/gpulock.c grader/launcher.c grader/classroom.c grader/calibrate.c grader/report.c grader/ceiling.c grader/libscan.c grader/loaded.c grader/profile.c harness/sandbox.c harness/seccomp.c
CORE_OBJS := $(CORE_SRCS:%.c=$(B)/%.o)
TUI_SRCS := tui/doc.c tui/highlight.c tui/markdown.c tui/watch.c tui/card.c tui/draw.c tui/state.c tui/views.c tui/app.c
TUI_OBJS := $(TUI_SRCS:%.c=$(B)/%.o)
TUI_LIBS := $(CMARK_LIBS) $(NCURSES_LIBS) -lm
# The command line: main.c (help, table, dispatch), what the commands share, one file per command.
CLI_SRCS := cli/main.c cli/options.c cli/session.c cli/gradings.c \
            cli/list.c cli/show.c cli/lesson.c cli/hint.c cli/solution.c cli/reset.c cli/progress.c cli/grade.c \
            cli/check_course.c cli/calibrate.c cli/bench.c cli/doctor.c cli/new.c cli/class.c cli/app.c
CLI_OBJS := $(CLI_SRCS:%.c=$(B)/%.o)
TESTS := test_course test_calibrate test_scaffold test_progress test_grader test_kernels test_evidence test_gpulock test_phases test_proc test_tui test_sandbox test_libscan test_rules
TEST_BINS := $(TESTS:%=$(B)/tests/%)

all: $(B)/gpucourse

# The packages that building needs (make test: also what the tests need):
# tools/deps.sh installs what is missing on Debian or Ubuntu when it may, or
# prints the apt-get line and stops. Silent when everything is there.
DEPS := $(if $(filter test,$(MAKECMDGOALS)),test,build)
deps:
	@CC='$(CC)' tools/deps.sh $(DEPS)

$(B)/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(TUI_OBJS): ALL_CFLAGS += $(NCURSES_CFLAGS)
$(B)/grader/gpulock.o: ALL_CFLAGS += -DGPUCOURSE_SHARED_LOCK_DIR='"$(LOCK_DIR)"'

$(B)/gpucourse: $(CORE_OBJS) $(TUI_OBJS) $(CLI_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(TUI_LIBS) $(LDLIBS)

$(B)/tests/%: $(B)/tests/%.o $(CORE_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(CMOCKA_LIBS) $(LDLIBS)

# The app's parts that need no terminal, tested without one.
$(B)/tests/test_tui: $(B)/tests/test_tui.o $(B)/tui/doc.o $(B)/tui/highlight.o $(B)/tui/markdown.o $(B)/tui/watch.o \
                     $(B)/tui/card.o $(CORE_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(CMOCKA_LIBS) $(CMARK_LIBS) -lm $(LDLIBS)

# The judge's decisions that need no GPU (harness/rules.c, plain C).
$(B)/tests/test_rules: $(B)/tests/test_rules.o $(B)/harness/rules.o $(CORE_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(CMOCKA_LIBS) $(LDLIBS) -lm

# The runner's sandbox (Landlock, seccomp), tested in forked children.
$(B)/tests/test_sandbox: $(B)/tests/test_sandbox.o $(CORE_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(CMOCKA_LIBS) $(LDLIBS) -lpthread

# Then how to start it again without make, from any directory.
run: $(B)/gpucourse
	@./$(B)/gpucourse; rc=$$?; \
	[ $$rc != 0 ] || echo "To start gpucourse again, from any directory: $(abspath $(B))/gpucourse (or make install, then gpucourse)"; \
	exit $$rc

test: $(B)/gpucourse $(TEST_BINS)
	@tests/run.sh tests/cli.sh tests/columns.sh tests/fixtures.sh tests/snippets.sh $(TEST_BINS) tests/deps.sh tests/host_plans.sh tests/ladders.sh tests/pmwitness.sh tests/witness_again.sh \
		tests/errata.sh tests/nvcc_phases.sh tests/gpus.sh tests/gpulock.sh tests/nogpu.sh tests/edges_compile.sh tests/edges_cli.sh tests/edges_progress.sh \
		tests/edges_course.sh tests/hostile_repo.sh tests/layers.sh tests/authoring.sh tests/runner_box.sh tests/class_data.sh tests/run_progress.sh tests/profile.sh \
		--serial tests/tui.sh tests/edges_tui.sh tests/tui_places.sh tests/ceilings.sh tests/slurm.sh

test-gpu: $(B)/gpucourse
	@tests/gpu.sh

install: $(B)/gpucourse
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/gpucourse
	install -m 755 $(B)/gpucourse $(DESTDIR)$(PREFIX)/bin/gpucourse
	cp -R course exercises solutions harness docs $(DESTDIR)$(PREFIX)/share/gpucourse/
	install -d $(DESTDIR)$(PREFIX)/share/gpucourse/tools
	install -m 644 tools/*.cu $(DESTDIR)$(PREFIX)/share/gpucourse/tools/  # the benchmarks the lessons cite
	@# the shared GPU lock directory: root's and sticky, so that no user can take
	@# it or another's file in it away (docs/harness.md); root makes it, or a package
	@if [ "$$(id -u)" = 0 ] || [ -n "$(DESTDIR)" ]; then \
	    install -d -m 1777 $(DESTDIR)$(LOCK_DIR) && chmod 1777 $(DESTDIR)$(LOCK_DIR) && \
	    if [ "$$(id -u)" = 0 ]; then chown root:root $(DESTDIR)$(LOCK_DIR); fi; \
	else echo "not root: $(LOCK_DIR) not made; gradings lock in /tmp (docs/classroom.md)"; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/gpucourse
	rm -rf $(DESTDIR)$(PREFIX)/share/gpucourse

# The measured ladders the lessons cite (GPU benchmarks, not tests), built
# with grader/toolchain.c's flags. Each ladder's variants are a patch (a
# fixture in tests/gpu/, or a tool's in tools/) applied to the reference, as
# tests/fixture_source.sh applies fixtures, so that they stop with an error
# the day the reference moves. tests/ladders.sh builds them all.
NVCC ?= nvcc
LADDER_NVCC = $(NVCC) -O3 -std=c++17 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Xptxas -v
LADDER_VARIANTS = $(B)/ex45_one_partial_sum.cu $(B)/ex45_threads_store.cu $(B)/ex43_whole_tiles_only.cu \
    $(B)/ex43_no_handover.cu
$(B)/ex45_one_partial_sum.cu: tests/gpu/ex45_one_partial_sum.patch solutions/ex45_fp8_blockscaled.cu
$(B)/ex45_threads_store.cu: tools/ex45_threads_store.patch solutions/ex45_fp8_blockscaled.cu
$(B)/ex43_whole_tiles_only.cu: tests/gpu/ex43_whole_tiles_only.patch solutions/ex43_split_k.cu
$(B)/ex43_no_handover.cu: tools/ex43_no_handover.patch solutions/ex43_split_k.cu
$(LADDER_VARIANTS):
	@mkdir -p $(B)
	tests/fixture_source.sh $< $@

# ex25's tile choice (chapter 7): make build/mma-ladder && build/mma-ladder.
$(B)/mma-ladder: tools/mma-ladder.cu solutions/ex25_mma_gemm.cu
	@mkdir -p $(B)
	$(LADDER_NVCC) -o $@ $< -lcublas 2>$(B)/mma-ladder.ptxas

# The rungs behind ex45's reference (chapter 11): one partial sum, two, and
# two with C stored through TMA (the reference), against cuBLASLt's
# block-scaled FP8 GEMM: make build/fp8-ladder && build/fp8-ladder. The calls
# and cuBLASLt are the harness kind's (-Iharness).
$(B)/fp8-ladder: tools/fp8-ladder.cu tools/ladder.h solutions/ex45_fp8_blockscaled.cu $(B)/ex45_one_partial_sum.cu $(B)/ex45_threads_store.cu harness/kinds/gemm_fp8_blockscaled.cu
	$(LADDER_NVCC) -Iharness -DEX45_ONE_SUM_FILE='"$(abspath $(B))/ex45_one_partial_sum.cu"' \
	    -DEX45_THREADS_STORE_FILE='"$(abspath $(B))/ex45_threads_store.cu"' -o $@ $< \
	    -lcuda -lcublasLt -lcublas 2>$(B)/fp8-ladder.ptxas

# The rungs behind ex43's lesson (chapter 11): whole waves, the reference,
# and the reference with its hand-over left out (a bound, wrong values),
# against cuBLAS at ex43's timed sizes and at long-K sizes:
# make build/splitk-ladder && build/splitk-ladder.
$(B)/splitk-ladder: tools/splitk-ladder.cu tools/ladder.h solutions/ex43_split_k.cu $(B)/ex43_whole_tiles_only.cu $(B)/ex43_no_handover.cu harness/kinds/gemm_bf16_kmajor.cu
	$(LADDER_NVCC) -Iharness -DEX43_WHOLE_FILE='"$(abspath $(B))/ex43_whole_tiles_only.cu"' \
	    -DEX43_NO_HANDOVER_FILE='"$(abspath $(B))/ex43_no_handover.cu"' -o $@ $< \
	    -lcuda -lcublas 2>$(B)/splitk-ladder.ptxas

# Sanitizer build for development: make asan && build-asan/gpucourse ...
asan:
	$(MAKE) B=build-asan CFLAGS='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer' \
	    LDFLAGS='-fsanitize=address,undefined' YAML_LIBS=-lyaml CMARK_LIBS='-lcmark-gfm-extensions -lcmark-gfm' all

# libFuzzer targets (clang): make fuzz && fuzz/run.sh 60 (see fuzz/run.sh).
# UBSan stops at its first report, so that libFuzzer sees it as a crash.
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
fuzz:
	$(MAKE) B=build-fuzz CC=clang CFLAGS='-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(FUZZ_SAN)' \
	    LDFLAGS='-fsanitize=fuzzer $(FUZZ_SAN)' YAML_LIBS=-lyaml build-fuzz/fuzz_course build-fuzz/fuzz_progress \
	    build-fuzz/fuzz_libscan

# the student's library as libscan reads it (bytes they choose)
$(B)/fuzz_libscan: $(B)/fuzz/fuzz_libscan.o $(B)/grader/libscan.o $(B)/src/util.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(B)/fuzz_%: $(B)/fuzz/fuzz_%.o $(B)/src/util.o $(B)/src/yamlguard.o $(B)/src/course.o $(B)/src/progress.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

clean:
	rm -rf $(B) build-asan build-fuzz

.PHONY: all deps run test test-gpu install uninstall asan fuzz clean
# Keep the test objects (made through a pattern chain): make would delete
# them after the run, and its rm line would follow the test summary.
.SECONDARY:
-include $(shell find $(B) -name '*.d' 2>/dev/null)
