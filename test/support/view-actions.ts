import type { ViewActions } from '../../src/adapters/vscode/chat/chat-actions';

/** A window without diff editors: an approval's change is never opened for editing. */
export const editorless: Pick<ViewActions, 'proposedChange' | 'editChange'> = {
  proposedChange: async () => {
    throw new Error('no diff editor in this test');
  },
  editChange: async () => {
    throw new Error('no diff editor in this test');
  },
};

/** The chat's VS Code actions as a test that does not look at them wants them: each does nothing. */
export function quietViewActions(overrides: Partial<ViewActions> = {}): ViewActions {
  return {
    openDiff: async () => undefined,
    openFile: async () => undefined,
    showTrace: async () => undefined,
    sessionsChanged: () => undefined,
    previewChange: async () => undefined,
    openSettings: async () => undefined,
    signInMcp: async () => undefined,
    showLog: () => undefined,
    storeKey: async () => undefined,
    useProvider: async () => undefined,
    useRoleProvider: async () => undefined,
    copyText: async () => undefined,
    insertAtCursor: async () => undefined,
    openPage: async () => true,
    pickFileForCode: async () => undefined,
    confirm: async () => true,
    ...editorless,
    ...overrides,
  };
}
