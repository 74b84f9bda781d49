# authbroker — build, run, test, install.
# `make run` builds and starts the daemon in the foreground with default paths;
# `make test` checks that Package.swift declares every import, then runs the whole test suite (what CI
# runs), failing after TEST_TIMEOUT (25m) instead of hanging.
# `make install PREFIX=… DESTDIR=…` installs binaries, systemd units, man pages and completions;
# `make verify-units` checks the systemd units (systemd-analyze verify + security exposure ≤ 2.0).
# `make check-completions` checks the bash completion by simulating COMP_WORDS.

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
CONFIG ?= release
SWIFT_FLAGS ?= -c $(CONFIG) --static-swift-stdlib
# An import of a package target that is not among the importer's dependencies fails the build.
# SwiftPM's check accepts transitive dependencies; .ci/check-imports wants direct ones.
IMPORT_CHECK = --explicit-target-dependency-import-check error
# Upper bound of `make test` (GNU timeout duration); a normal run takes a few minutes.
TEST_TIMEOUT ?= 25m
# Tests run at once (Swift Testing); unbounded, the pool's backlog outlasts loopback timeouts (docs/DEVELOPING.md).
TEST_WIDTH ?= 12
BINDIR = $(DESTDIR)$(PREFIX)/bin
USERUNITDIR = $(DESTDIR)$(PREFIX)/lib/systemd/user
SYSTEMUNITDIR = $(DESTDIR)$(PREFIX)/lib/systemd/system
SYSUSERSDIR = $(DESTDIR)$(PREFIX)/lib/sysusers.d
MAN1DIR = $(DESTDIR)$(PREFIX)/share/man/man1
MAN8DIR = $(DESTDIR)$(PREFIX)/share/man/man8
BASHCOMPDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHCOMPDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
# The units name /usr/local/bin/authbrokerd; installed copies name $(PREFIX)/bin (never DESTDIR).
UNIT_SED = sed 's|/usr/local/bin/authbrokerd|$(PREFIX)/bin/authbrokerd|'

.PHONY: all deps build run test install install-files verify-units check-completions uninstall clean

all: build

# Installs the system -dev packages when they are missing (Debian/Ubuntu).
deps:
	@./.ci/install-deps

build: deps
	$(SWIFT) build $(SWIFT_FLAGS) $(IMPORT_CHECK)

run: build
	$$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/authbrokerd

# Bounded (GNU timeout) and in a session of its own: CI runs it unattended, and a hung test must
# fail the run, not stall it, nor leave daemons behind (.ci/run-tests).
test: deps
	@.ci/check-imports
	@SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) .ci/run-tests $(TEST_TIMEOUT) $(SWIFT) test --parallel $(IMPORT_CHECK)

# authctl-full is the full CLI the authctl front runs for everything but `authctl token NAME`:
# it must stay beside authctl (Sources/authctl/Front.swift).
install: build install-files
	install -d $(BINDIR)
	install -m 0755 $$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/authbrokerd $(BINDIR)/authbrokerd
	install -m 0755 $$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/authctl $(BINDIR)/authctl
	install -m 0755 $$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/authctl-full $(BINDIR)/authctl-full

# Everything but the binaries: units, sysusers.d file, man pages, completions.
install-files:
	install -d $(USERUNITDIR) $(SYSTEMUNITDIR) $(SYSUSERSDIR) $(MAN1DIR) $(MAN8DIR) \
		$(BASHCOMPDIR) $(ZSHCOMPDIR) $(FISHCOMPDIR)
	$(UNIT_SED) systemd/authbrokerd.service > $(USERUNITDIR)/authbrokerd.service
	install -m 0644 systemd/authbrokerd.socket $(USERUNITDIR)/authbrokerd.socket
	$(UNIT_SED) systemd/system/authbrokerd.service > $(SYSTEMUNITDIR)/authbrokerd.service
	install -m 0644 systemd/system/authbrokerd.socket $(SYSTEMUNITDIR)/authbrokerd.socket
	chmod 0644 $(USERUNITDIR)/authbrokerd.service $(SYSTEMUNITDIR)/authbrokerd.service
	install -m 0644 systemd/system/authbroker.conf $(SYSUSERSDIR)/authbroker.conf
	install -m 0644 docs/authctl.1 $(MAN1DIR)/authctl.1
	install -m 0644 docs/authbrokerd.8 $(MAN8DIR)/authbrokerd.8
	install -m 0644 docs/completions/authctl.bash $(BASHCOMPDIR)/authctl
	install -m 0644 docs/completions/_authctl $(ZSHCOMPDIR)/_authctl
	install -m 0644 docs/completions/authctl.fish $(FISHCOMPDIR)/authctl.fish

# Skips (exit 0) when systemd-analyze is missing.
verify-units:
	$(SWIFT) build --product authbrokerd
	systemd/verify-units.sh $$($(SWIFT) build --show-bin-path)/authbrokerd

# Simulates bash completion against a stand-in authctl; needs only bash.
check-completions:
	docs/completions/check-bash-completion.sh

uninstall:
	rm -f $(BINDIR)/authbrokerd $(BINDIR)/authctl $(BINDIR)/authctl-full
	rm -f $(USERUNITDIR)/authbrokerd.service $(USERUNITDIR)/authbrokerd.socket
	rm -f $(SYSTEMUNITDIR)/authbrokerd.service $(SYSTEMUNITDIR)/authbrokerd.socket
	rm -f $(SYSUSERSDIR)/authbroker.conf $(MAN1DIR)/authctl.1 $(MAN8DIR)/authbrokerd.8
	rm -f $(BASHCOMPDIR)/authctl $(ZSHCOMPDIR)/_authctl $(FISHCOMPDIR)/authctl.fish

clean:
	$(SWIFT) package clean
