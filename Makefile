# authbroker — build, run, test, install.
# `make run` builds and starts the daemon in the foreground with default paths;
# `make test` runs the whole test suite (what CI runs).

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
CONFIG ?= release
SWIFT_FLAGS ?= -c $(CONFIG) --static-swift-stdlib
BINDIR = $(DESTDIR)$(PREFIX)/bin

.PHONY: all deps build run test install uninstall clean

all: build

# Installs the system -dev packages when they are missing (Debian/Ubuntu).
deps:
	@./.ci/install-deps

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

run: build
	$$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/authbrokerd

test: deps
	$(SWIFT) test --parallel

install: build
	install -d $(BINDIR)
	install -m 0755 $$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/authbrokerd $(BINDIR)/authbrokerd
	install -m 0755 $$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/authctl $(BINDIR)/authctl

uninstall:
	rm -f $(BINDIR)/authbrokerd $(BINDIR)/authctl

clean:
	$(SWIFT) package clean
