// The viewer's layout: the key-reading banner when an AI reads the person's key presses, the
// chrome bar on top (menu button, the desktop and who is in charge of its AI, whether it is
// being recorded, mode selector, Stop
// and the account menu), and the remote
// desktop with its overlay layer filling the rest. The approval panel and the menu float over
// the desktop area — siblings of the display, never inside it — so neither one moves or
// rescales the display when it opens or closes. The session is created and started outside
// React (main.tsx), so re-renders never touch the connection.
import { useCallback, useEffect } from 'react';
import type Guacamole from 'guacamole-common-js';
import type { GuacSession } from './display/guacSession.js';
import type { Hotkey } from './display/hotkeys.js';
import { RemoteDisplay } from './display/RemoteDisplay.js';
import { StatusBar } from './ui/StatusBar.js';
import { getBrowserControl } from './control/browserControl.js';
import { ConfirmDialog } from './confirm/ConfirmDialog.js';
import { ControlControls } from './confirm/ControlControls.js';
import { OverlayLayer } from './overlay/OverlayLayer.js';
import { MaskLayer } from './privacy/MaskLayer.js';
import { AccountMenu } from './ui/AccountMenu.js';
import { KeyReadingBanner } from './ui/KeyReadingBanner.js';
import { ClientMenu, focusDesktop } from './menu/ClientMenu.js';
import { bindPageHotkeys } from './menu/pageHotkeys.js';
import { viewerPrefsStore } from './store/viewerPrefs.js';
import { AiPointerLayer } from './overlay/AiPointerLayer.js';
import { Toasts } from './ui/Toasts.js';
import { ApprovalAnnouncer } from './confirm/ApprovalAnnouncer.js';
import { UnaskedIndicator } from './activity/UnaskedIndicator.js';
import { TakeOverButton } from './takeover/TakeOverButton.js';
import { TakeOverBanner } from './takeover/TakeOverBanner.js';
import { HeldActionsPanel } from './takeover/HeldActionsPanel.js';
import { ActionLog, ActionLogButton } from './activity/ActionLog.js';
import { ReconnectNotice } from './ui/ReconnectNotice.js';
import { ApprovalsElsewhere } from './confirm/ApprovalsElsewhere.js';
import { MakeControlButton } from './confirm/MakeControlButton.js';
import { focusFirstAnswer } from './confirm/answerKeyboard.js';
import { TeachLayer } from './teach/TeachLayer.js';
import { TeachPanel } from './teach/TeachPanel.js';
import { DesktopCharge } from './charge/DesktopCharge.js';
import { MonitorWindowsOffer } from './viewport/MonitorWindowsOffer.js';
import { RecordingIndicator } from './recordings/RecordingIndicator.js';
import { LiveAiTimeline } from './recordings/LiveAiTimeline.js';
import { OtherDesktopsApprovals } from './fleet/OtherDesktopsApprovals.js';
import { FilesButton, FilesPanel } from './files/FilesPanel.js';
import { ViewerFileDrop } from './files/ViewerFileDrop.js';

export interface AppProps {
  session: GuacSession<Guacamole.Client>;
}

export function App({ session }: AppProps) {
  // Created once per page (idempotent), outside React's lifecycle like the session.
  const control = getBrowserControl();
  // Stable, so the display never rebinds its keyboard on a re-render.
  const onHotkey = useCallback(
    (hotkey: Hotkey) => {
      if (hotkey === 'stop') {
        control.stop();
        return;
      }
      if (focusFirstAnswer(document)) return; // an approval waits: the chord answers it first
      const prefs = viewerPrefsStore.getState();
      if (prefs.menuOpen) focusDesktop();
      prefs.menuToggled();
    },
    [control],
  );
  useEffect(() => bindPageHotkeys(document, onHotkey), [onHotkey]);
  return (
    <div className="app">
      {/* Above everything else: the person must see when an AI reads what they type. */}
      <KeyReadingBanner />
      <ApprovalAnnouncer />
      <StatusBar
        onReconnectNow={() => session.reconnectNow()}
        onOpenMenu={() => viewerPrefsStore.getState().menuToggled()}
        desktop={
          <>
            <DesktopCharge onCharge={control.charge} />
            <RecordingIndicator />
            <LiveAiTimeline />
          </>
        }
        controls={
          <>
            <UnaskedIndicator onRevoke={control.revoke} />
            <span className="status-bar__wide-only">
              <TakeOverButton />
              <ActionLogButton />
              <FilesButton />
            </span>
            <MakeControlButton onTakeControl={control.takeControl} />
            <ControlControls onStop={control.stop} onChooseMode={control.chooseMode} />
          </>
        }
        account={<AccountMenu />}
      />
      <div className="app__body">
        <main className="app__desktop">
          {/* Before the display in Tab order (the desktop area keeps Tab for the desktop): the
              bar's last control is followed by another desktop's waiting question. Drawn above
              the display all the same (fleet.css z-index). */}
          <OtherDesktopsApprovals />
          <RemoteDisplay onHotkey={onHotkey} />
          {/* Siblings of the display, above it, click-through. */}
          <OverlayLayer />
          <MaskLayer />
          <AiPointerLayer />
          <ReconnectNotice onReconnectNow={() => session.reconnectNow()} />
          <TakeOverBanner />
          <ApprovalsElsewhere onStop={control.stop} onAnswer={control.answerElsewhere} />
          {/* Teach mode (request_annotation): takes the pointer over the display, never inside it. */}
          <TeachLayer />
          <TeachPanel />
          <MonitorWindowsOffer />
          {/* Files sent to and fetched from the desktop; a drop anywhere on the window sends. */}
          <FilesPanel />
          <ViewerFileDrop />
        </main>
        <ActionLog />
        <ClientMenu
          clipboard={control.clipboard}
          onDisconnect={() => session.stop()}
          onReconnect={() => session.start()}
        />
        {/* Over the display area, never inside the display: the desktop cannot receive the approving click. */}
        <ConfirmDialog answer={control.answer} grant={control.grant} stop={control.stop} />
        <HeldActionsPanel answer={control.answerHeld} />
        <Toasts />
      </div>
    </div>
  );
}
