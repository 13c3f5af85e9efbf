#!/usr/bin/env bash
# Installs what Shutter needs from the OS: Debian's Chromium (headless shell preferred), fonts, uBlock
# Origin's bundled filter lists (used by block_ads), ffmpeg (/v1/animate's encoder), and poppler-utils
# and qpdf (the tests read PDFs back with them: test/e2e/pdf-documents.test.ts). Used by `make start`,
# `make test` (so CI) and the Dockerfile alike, so that all three draw text with the same fonts.
# Idempotent: installs nothing when everything is present (only rewrites the fontconfig file below if it
# differs). Never downloads a browser build of its own.
#
# SHUTTER_FONTS picks the fonts (docs/fonts.md):
#   full (default)  every script in common use: a page in Hindi, Thai or Amharic otherwise shows
#                   empty boxes ("tofu"), and a capture service cannot know its pages' languages.
#   lean            Latin, Greek, Cyrillic, Arabic, Hebrew, Armenian, Georgian, Lao, emoji and a few
#                   more, no CJK: for operators who know their pages and count megabytes (~137 MB less).
# lean never removes fonts that are already installed.
set -euo pipefail

fonts_lean=(fonts-dejavu-core fonts-liberation fonts-noto-color-emoji)
case "${SHUTTER_FONTS:-full}" in
  full) fonts=("${fonts_lean[@]}" fonts-noto-cjk fonts-noto-core) ;;
  lean) fonts=("${fonts_lean[@]}") ;;
  *)
    echo "shutter: SHUTTER_FONTS must be full or lean, not '${SHUTTER_FONTS}'" >&2
    exit 2
    ;;
esac

packages=(chromium-headless-shell chromium "${fonts[@]}" webext-ublock-origin-chromium ffmpeg poppler-utils qpdf)
# --list: the packages this would install, one a line, and nothing else (test/unit/system-deps.test.ts,
# docs/fonts.md).
if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

# Chromium looks up a font for a character its font lacks by asking fontconfig for "sans-serif" in the
# text's language, whatever the page's generic family. Nothing in Debian ranks Noto Sans before Noto
# Serif for the scripts that have both, so Gujarati, Kannada and Sinhala came out in Noto Serif and the
# others in Noto Sans. This puts the Noto Sans face first for every such script; it is inserted just
# before "sans-serif", after 60-latin.conf's list, so scripts that DejaVu covers keep DejaVu.
font_prefs=/etc/fonts/conf.d/65-shutter-noto-sans.conf
font_prefs_xml() {
  echo '<?xml version="1.0"?>'
  echo '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">'
  echo '<!-- Written by Shutter'"'"'s scripts/install-system-deps.sh (docs/fonts.md). -->'
  echo '<fontconfig>'
  echo '  <alias>'
  echo '    <family>sans-serif</family>'
  echo '    <prefer>'
  for script in Armenian Balinese Bengali Devanagari Ethiopic Georgian Grantha Gujarati Gurmukhi Hebrew Kannada \
    Khmer Khojki Lao Malayalam Myanmar Sinhala Tamil Telugu Thai; do
    echo "      <family>Noto Sans ${script}</family>"
  done
  echo '    </prefer>'
  echo '  </alias>'
  echo '</fontconfig>'
}
install_font_prefs() {
  [ "${SHUTTER_FONTS:-full}" = full ] && [ -d /etc/fonts/conf.d ] || return 0
  if [ -f "$font_prefs" ] && font_prefs_xml | cmp -s - "$font_prefs"; then return 0; fi
  local as_root=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      as_root="sudo"
    else
      echo "shutter: as root, write $font_prefs (see docs/fonts.md) so that sans-serif text falls back to Noto Sans" >&2
      return 0
    fi
  fi
  font_prefs_xml | $as_root tee "$font_prefs" >/dev/null
  echo "shutter: wrote $font_prefs" >&2
}

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
else
  missing=("${packages[@]}")
fi
if [ ${#missing[@]} -eq 0 ]; then
  install_font_prefs
  exit 0
fi

if [ -n "${SHUTTER_CHROMIUM_PATH:-}" ] && [ -x "${SHUTTER_CHROMIUM_PATH}" ]; then
  echo "shutter: using SHUTTER_CHROMIUM_PATH=${SHUTTER_CHROMIUM_PATH}; not installing: ${missing[*]}" >&2
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  cat >&2 <<MSG
shutter: cannot install Chromium here (no apt-get: not Debian/Ubuntu).
  Install Chromium (or chrome-headless-shell) and fonts for your pages' scripts (docs/fonts.md) with your
  package manager, then point Shutter at it:
    export SHUTTER_CHROMIUM_PATH=/path/to/chromium
MSG
  command -v chromium-headless-shell chromium chromium-browser google-chrome >/dev/null 2>&1 && exit 0
  exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=""
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo_cmd="sudo"; fi
  if [ -z "$sudo_cmd" ]; then
    cat >&2 <<MSG
shutter: missing system packages: ${missing[*]}
  Install them as root:
    sudo apt-get update && sudo apt-get install -y ${missing[*]}
  or set SHUTTER_CHROMIUM_PATH to an existing Chromium binary.
MSG
    exit 1
  fi
else
  sudo_cmd=""
fi

echo "shutter: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Another apt (unattended upgrades, a parallel provisioning step) may hold the lock: wait for it.
apt=(apt-get -o DPkg::Lock::Timeout=600)
$sudo_cmd "${apt[@]}" update -q >/dev/null
if ! $sudo_cmd "${apt[@]}" install -y -q --no-install-recommends "${missing[@]}" >/dev/null; then
  # Ubuntu ships chromium as a snap stub, and some releases lack the headless shell package: try one by one
  # so that whatever is available still lands, then require at least one browser.
  for p in "${missing[@]}"; do $sudo_cmd "${apt[@]}" install -y -q --no-install-recommends "$p" >/dev/null 2>&1 || echo "shutter: could not install $p" >&2; done
  if ! command -v chromium-headless-shell >/dev/null 2>&1 && ! command -v chromium >/dev/null 2>&1; then
    echo "shutter: no Chromium could be installed; install one and set SHUTTER_CHROMIUM_PATH" >&2
    exit 1
  fi
fi
install_font_prefs
