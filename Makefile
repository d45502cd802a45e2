# SPDX-License-Identifier: GPL-2.0
#
# preempt-modes: keep preempt=none/voluntary selectable on Linux 7.x, warn
# about shared memory without huge pages, and choose the mode at boot.
#
#   make          the user-space parts (preempt-policy); kernels only from
#                 an explicit target (make kernels, make kernel-ARCH-VARIANT)
#   make run      boot the patched kernel in QEMU (ARCH=arm64 or x86_64)
#   make check    every test, TAP, ends with "N passed, N failed, N skipped"
#   make bench    the slow measurements (not part of check)
#   make install / uninstall   DESTDIR, PREFIX (/usr), SYSCONFDIR (/etc)
#   make deb      Debian packages of the user-space parts in build/deb/
#                 (DEB_ARCHES: the host's and arm64)
#
# Heavy artefacts (kernel trees, objects, guest root file systems) live in
# $(CACHE), outside the repository, and are reused across clones: clean
# and distclean never delete it (rm -rf it yourself to reclaim the space).

ARCH ?= arm64
ARCHES := arm64 x86_64
# The rig's one rule (cache_dir in tests/rig/lib.sh): $(PREEMPT_CACHE), else
# $(XDG_CACHE_HOME)/preempt-modes, else ~/.cache/preempt-modes. The rig
# knows each ARCH's boot image too (its arch table).
RIGLIB = . '$(CURDIR)/tests/rig/lib.sh' &&
ifndef CACHE
CACHE := $(shell $(RIGLIB) cache_dir)
endif
BUILD ?= $(CURDIR)/build
RIG := tests/rig
JOBS ?= $(shell nproc)
export PREEMPT_CACHE := $(CACHE)
export BUILD JOBS

PATCHED_TREE := $(CACHE)/trees/patched
SEED_TREE := $(CACHE)/trees/seed
SEEDFIX_TREE := $(CACHE)/trees/seedfix
OBJ := $(CACHE)/obj

.PHONY: all deps deb deb-debian13 tree patched-tree seed-tree seedfix-tree kernels kernel run check bench \
	check-apply check-patches check-drift check-prefixes upstream-series check-debug install uninstall \
	clean distclean policy

all: policy

deps:
	@$(RIG)/install-deps.sh

# The pristine tree's path is printed by fetch-tree.sh; keep it in a file
# so that later steps do not ask the registry again.
$(BUILD)/pristine.path: configs/linux-source.lock $(RIG)/fetch-tree.sh | deps
	@mkdir -p $(BUILD)
	@$(RIG)/fetch-tree.sh > $@.tmp && mv $@.tmp $@

tree: $(BUILD)/pristine.path
	@cat $<

patched-tree: $(BUILD)/pristine.path
	@$(RIG)/prepare-tree.sh "$$(cat $<)" $(PATCHED_TREE) patches

# The pristine tree with the report's own fix (PREEMPT_NONE as the build
# default), for the mechanism benchmark's comparison.
seed-tree: $(BUILD)/pristine.path
	@$(RIG)/prepare-seed-tree.sh "$$(cat $<)" $(SEED_TREE)

# The same with a fix for x86_64, whose PREEMPT_NONE build of that tree
# never schedules in cond_resched() (prepare-seed-tree.sh says why).
seedfix-tree: $(BUILD)/pristine.path
	@$(RIG)/prepare-seed-tree.sh --x86-resched-fix "$$(cat $<)" $(SEEDFIX_TREE)

# kernel-ARCH-VARIANT: base (pristine), patched, debug (patched with lockdep,
# atomic-sleep checks and KASAN), seed (the report's fix: PREEMPT_NONE
# built in, not dynamic), seeddyn (the same tree, PREEMPT_DYNAMIC booting
# in none), seedfix (seed with the x86 fix of seedfix-tree; on arm64 the
# same kernel as seed).
FRAGS_base = configs/qemu-common.config configs/qemu-$(1).config
FRAGS_patched = $(FRAGS_base) configs/qemu-patched.config
FRAGS_debug = $(FRAGS_patched) configs/qemu-debug.config configs/qemu-kasan.config
FRAGS_seed = $(FRAGS_base) configs/qemu-seed.config
FRAGS_seeddyn = $(FRAGS_base) configs/qemu-seeddyn.config
FRAGS_seedfix = $(FRAGS_seed)
# Expanded when a recipe runs, after pristine.path has been made.
PRISTINE = $(shell cat $(BUILD)/pristine.path)
TREE_base = $(PRISTINE)
TREE_patched = $(PATCHED_TREE)
TREE_debug = $(PATCHED_TREE)
TREE_seed = $(SEED_TREE)
TREE_seeddyn = $(SEED_TREE)
TREE_seedfix = $(SEEDFIX_TREE)
DEP_base = $(BUILD)/pristine.path
DEP_patched = patched-tree
DEP_debug = patched-tree
DEP_seed = seed-tree
DEP_seeddyn = seed-tree
DEP_seedfix = seedfix-tree

define kernel_rule
.PHONY: kernel-$(1)-$(2)
kernel-$(1)-$(2): $(DEP_$(2))
	@$(RIG)/build-kernel.sh $(1) "$$(TREE_$(2))" $(OBJ)/$(1)-$(2) \
		$(call FRAGS_$(2),$(1))
endef
$(foreach a,$(ARCHES),$(foreach v,base patched debug seed seeddyn seedfix,\
	$(eval $(call kernel_rule,$(a),$(v)))))

# Debian's own x86_64 kernel of the pinned version, not built: the negative
# control make check boots (tests/lib/common.sh, unpatched_kernel).
.PHONY: kernel-x86_64-debian
kernel-x86_64-debian:
	@$(RIG)/fetch-distro-kernel.sh x86_64 $(OBJ)/x86_64-debian

kernels: $(foreach a,$(ARCHES),kernel-$(a)-base kernel-$(a)-patched)

kernel: kernel-$(ARCH)-patched

policy:
	@$(MAKE) -s -C policy

run: deps kernel-$(ARCH)-patched policy
	@tests/demo/main.sh $(ARCH)

check: deps
	@tests/check.sh

bench: deps
	@BENCH_ARCH=$(ARCH) tests/bench/bench.sh

# The boot tests and a long mode-switch stress run on the debug kernel
# (lockdep, atomic-sleep checks, KASAN), which check does not build: check
# runs its stress (1000 switches on arm64, 10 on x86_64, whose switches take
# about a second each under TCG) on the plain patched kernel.
check-debug: deps kernel-$(ARCH)-debug
	@SWITCHES=$${SWITCHES:-3000} \
		tests/kernel/mode-guests.sh -k $(PATCHED_TREE) \
		$(ARCH) $(OBJ)/$(ARCH)-debug/$(shell $(RIGLIB) kernel_image_for $(ARCH)) \
		boot stress

check-apply: $(BUILD)/pristine.path
	@tests/suites/20-apply.sh

check-patches: $(BUILD)/pristine.path
	@tests/suites/21-checkpatch.sh

check-drift: deps
	@tests/check-drift.sh

# Bisectability: every prefix of the series builds on arm64 and x86_64,
# with CONFIG_PREEMPT_DYNAMIC_ALL_MODES off and on, and the mm series alone
# on the pristine tree. Dozens of kernel builds (ccache-served where a
# patch changes nothing): not part of check.
# Proof that make check catches breakage: each tests/mutants/NAME.sh breaks
# one promise in a scratch copy and names the suites that must fail
# (tests/check-mutants.sh; MUTANTS="a b" for some). Kernel mutants rebuild
# the arm64 patched kernel each, in a cache of their own. Not part of check.
.PHONY: check-mutants
check-mutants: deps $(BUILD)/pristine.path
	@tests/check-mutants.sh $(MUTANTS)

# The mails to post: every patch of patches/sched, mm and fixes as git
# format-patch wrote it, without the DEP-3 lines (Origin, Forwarded,
# Last-Update) that Debian's patch files carry, in $(BUILD)/upstream/.
# 21-checkpatch runs checkpatch on exactly these.
upstream-series:
	@rm -rf $(BUILD)/upstream
	@for d in sched mm fixes; do \
		mkdir -p $(BUILD)/upstream/$$d && \
		for p in patches/$$d/0*.patch; do \
			$(RIG)/dep3.sh strip $$p >$(BUILD)/upstream/$$d/$${p##*/} || exit 1; \
		done; \
	done
	@echo "$(BUILD)/upstream: $$(ls $(BUILD)/upstream/*/*.patch | wc -l) mails"

check-prefixes: $(BUILD)/pristine.path
	@$(RIG)/build-prefixes.sh "$$(cat $<)" $(CACHE)/trees/prefixes $(ARCHES)
	@$(RIG)/build-prefixes.sh --only mm "$$(cat $<)" $(CACHE)/trees/prefixes-mm $(ARCHES)

# Install: the tool, its man pages and the boot integration (initrd/,
# whose dracut, systemd and initramfs-tools directories come from
# pkg-config, not PREFIX). /etc/preempt-policy.conf is the admin's: an
# edited one is kept, and the shipped default lands beside it as
# preempt-policy.conf.dist (and always in DOCDIR).
PREFIX ?= /usr
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/preempt-policy
SYSCONFDIR ?= /etc
INSTALL_VARS = DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) SBINDIR=$(SBINDIR)
CONF = $(DESTDIR)$(SYSCONFDIR)/preempt-policy.conf

install: policy
	install -D -m 0755 policy/preempt-policy $(DESTDIR)$(SBINDIR)/preempt-policy
	install -D -m 0644 policy/preempt-policy.8 $(DESTDIR)$(MANDIR)/man8/preempt-policy.8
	install -D -m 0644 policy/preempt-policy.conf.5 \
		$(DESTDIR)$(MANDIR)/man5/preempt-policy.conf.5
	install -D -m 0644 policy/preempt-policy.conf $(DESTDIR)$(DOCDIR)/preempt-policy.conf
	install -d $(DESTDIR)$(SYSCONFDIR)/preempt-policy.d
	@if [ ! -e $(CONF) ] || cmp -s policy/preempt-policy.conf $(CONF); then \
		install -m 0644 policy/preempt-policy.conf $(CONF); \
		rm -f $(CONF).dist; \
	else \
		install -m 0644 policy/preempt-policy.conf $(CONF).dist; \
		echo "make install: kept the edited $(CONF); the shipped default is $(CONF).dist"; \
	fi
	@$(MAKE) -s -C initrd install $(INSTALL_VARS)

# What install put there; an edited /etc/preempt-policy.conf stays.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/preempt-policy $(DESTDIR)$(MANDIR)/man8/preempt-policy.8 \
		$(DESTDIR)$(MANDIR)/man5/preempt-policy.conf.5 \
		$(DESTDIR)$(DOCDIR)/preempt-policy.conf $(CONF).dist
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null
	@if [ -e $(CONF) ] && ! cmp -s policy/preempt-policy.conf $(CONF); then \
		echo "make uninstall: kept the edited $(CONF)"; \
	else \
		rm -f $(CONF); \
	fi
	-rmdir $(DESTDIR)$(SYSCONFDIR)/preempt-policy.d 2>/dev/null
	@$(MAKE) -s -C initrd uninstall $(INSTALL_VARS)

# The Debian package (debian/): dpkg-buildpackage -us -uc -b for the host's
# architecture, cross (-a) for the others, from a copy of the tree under
# $(BUILD)/deb/src; the .deb, .buildinfo and .changes files land in
# $(BUILD)/deb. Its files are the ones install lays out (suite 15-deb).
DEB_ARCHES ?= $(sort $(shell dpkg --print-architecture 2>/dev/null) arm64)

deb: deps
	@$(RIG)/build-deb.sh $(BUILD)/deb $(DEB_ARCHES)
	@ls $(BUILD)/deb/*.deb

# The package on Debian 13 (trixie), in a debootstrap chroot (as root):
# built there from make deb's source package, lintian, apt-get install of
# the Debian 12 and the Debian 13 build, remove, purge. Prints TAP; not
# part of check (a cold chroot is a few minutes of downloads).
deb-debian13: deb
	@$(RIG)/deb-debian13.sh $(BUILD)/deb

# Build output of this checkout only. The cache ($(CACHE): kernel trees,
# objects, guest file systems, ccache-warm builds) is never deleted here.
clean:
	@case "$(abspath $(CACHE))/" in "$(abspath $(BUILD))/"*) \
		echo "make clean: BUILD ($(BUILD)) holds the cache $(CACHE); not removing it" >&2; \
		exit 1 ;; esac
	rm -rf $(BUILD)
	-$(MAKE) -C policy clean
	-$(MAKE) -C tests/bench clean

distclean: clean
	@echo "make distclean: the cache in $(CACHE) is kept; remove it by hand to reclaim the space"
