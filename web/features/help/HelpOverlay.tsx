/** Keyboard shortcuts (`?`). */
import { Kbd } from "../../components/feedback.js";
import { Modal } from "../../components/Modal.js";
import { SHORTCUTS } from "./shortcuts-list.js";

export function HelpOverlay({ onClose }: { onClose: () => void }) {
  return (
    <Modal title="Keyboard shortcuts" onClose={onClose} wide>
      <div className="help-grid">
        {SHORTCUTS.map((group) => (
          <section key={group.title}>
            <h3>{group.title}</h3>
            <dl>
              {group.keys.map(([keys, action]) => (
                <div key={keys} className="help-row">
                  <dt>
                    <Kbd>{keys}</Kbd>
                  </dt>
                  <dd>{action}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
      <p className="muted small">Keys are ignored while typing in a field, except ⌘K/Ctrl+K and Esc.</p>
    </Modal>
  );
}
