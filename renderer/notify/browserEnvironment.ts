import type { NotifierEnvironment } from './promptNotifier';

/** How long the prompt sound lasts, in seconds. */
const TONE_SECONDS = 0.18;

let audio: AudioContext | undefined;

/** A short two-note chime, made on the spot (no sound file to ship). */
function chime(): void {
  try {
    audio ??= new AudioContext();
    const start = audio.currentTime;
    for (const [index, frequency] of [880, 1320].entries()) {
      const tone = audio.createOscillator();
      const volume = audio.createGain();
      tone.frequency.value = frequency;
      volume.gain.setValueAtTime(0.15, start + index * TONE_SECONDS);
      volume.gain.exponentialRampToValueAtTime(0.001, start + (index + 1) * TONE_SECONDS);
      tone.connect(volume).connect(audio.destination);
      tone.start(start + index * TONE_SECONDS);
      tone.stop(start + (index + 1) * TONE_SECONDS);
    }
  } catch {
    // No audio here: the sound is a courtesy.
  }
}

/**
 * The page's side of notifications. In a browser: hidden means the tab is not shown, and
 * notifications need the permission the person gave. In the desktop app the main process shows
 * them (the window out of focus counts as hidden there), so the page never does.
 */
export function browserEnvironment(shell: 'browser' | 'desktop'): NotifierEnvironment {
  return {
    hidden: () => document.hidden || (shell === 'desktop' && !document.hasFocus()),
    canNotify: () => shell === 'browser' && typeof Notification !== 'undefined' && Notification.permission === 'granted',
    notify: (title, options) => {
      try {
        return new Notification(title, options);
      } catch {
        return undefined;
      }
    },
    playSound: chime,
    focus: () => window.focus(),
  };
}

/** Where the notification choices are kept: localStorage, or nowhere when it is blocked. */
export function preferenceStore(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}
