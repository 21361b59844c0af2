// Run in the page before the console loads (page.addInitScript): a stand-in for the Notification
// API that records every notification shown, and a page visibility the spec sets. A headless
// browser has neither a notification centre nor a tab that can be hidden. A hidden tab stays hidden
// when it reloads, as a background tab does, and a permission given is kept, as a browser keeps it.
(() => {
  const HIDDEN_KEY = 'notificationStandIn.hidden';
  const PERMISSION_KEY = 'notificationStandIn.permission';
  const shown = [];
  const permissionRequests = [];
  let hidden = sessionStorage.getItem(HIDDEN_KEY) === 'yes';
  class StandInNotification {
    static permission = sessionStorage.getItem(PERMISSION_KEY) ?? 'default';
    static async requestPermission() {
      permissionRequests.push('asked');
      StandInNotification.permission = 'granted';
      sessionStorage.setItem(PERMISSION_KEY, 'granted');
      return 'granted';
    }
    constructor(title, options) {
      this.title = title;
      this.body = options?.body ?? '';
      this.tag = options?.tag ?? '';
      this.closed = false;
      this.onclick = null;
      shown.push(this);
    }
    close() {
      this.closed = true;
    }
  }
  Object.defineProperty(window, 'Notification', { value: StandInNotification, configurable: true });
  Object.defineProperty(document, 'hidden', { get: () => hidden, configurable: true });
  Object.defineProperty(document, 'visibilityState', { get: () => (hidden ? 'hidden' : 'visible'), configurable: true });
  window.notificationStandIn = {
    /** What was shown, as plain data. */
    shown: () => shown.map(({ title, body, tag, closed }) => ({ title, body, tag, closed })),
    /** How often the page asked for permission. */
    permissionRequests: () => permissionRequests.length,
    /** Clicks the notification at `index`. */
    click: (index) => shown[index]?.onclick?.(new Event('click')),
    /** Hides or shows the page, as switching tabs would. */
    setHidden: (value) => {
      hidden = value;
      sessionStorage.setItem(HIDDEN_KEY, value ? 'yes' : 'no');
      document.dispatchEvent(new Event('visibilitychange'));
    },
  };
})();
