/**
 * The standing answers the person gave with "Always" (or "Never") in this
 * session, above the input while there are any: what each covers, and
 * **Revoke** to be asked again from the next call on. Folded to one line
 * ("2 standing approvals") until opened.
 */
import { button, el } from './elements';
import { t } from './l10n';
import type { Post } from './host';
import type { StandingRuleView } from './protocol';

export class RulesView {
  readonly element = el('details', 'rules');

  constructor(private readonly post: Post) {
    this.element.hidden = true;
  }

  show(rules: readonly StandingRuleView[]): void {
    const open = this.element.open;
    this.element.replaceChildren();
    this.element.hidden = rules.length === 0;
    if (rules.length === 0) return;
    const count = rules.length;
    const summary = el('summary', 'rules-summary', count === 1 ? t('1 standing answer ("Always" or "Never")') : t`${count} standing answers ("Always" or "Never")`);
    summary.title = t('What you answered Always or Never to in this session: Revoke one to be asked again');
    const list = el('ul', 'rules-list');
    list.setAttribute('aria-label', t('Standing answers'));
    for (const rule of rules) {
      const row = el('li', 'rule');
      row.dataset['id'] = rule.id;
      row.append(el('span', 'rule-text', rule.allowed ? t`Always allowed: ${rule.covers}` : t`Never allowed: ${rule.covers}`));
      const revoke = button(t('Revoke'), 'rule-revoke', () => {
        revoke.disabled = true;
        this.post({ type: 'revoke_rule', id: rule.id });
      });
      revoke.setAttribute('aria-label', rule.allowed ? t`Revoke: always allowed ${rule.covers}` : t`Revoke: never allowed ${rule.covers}`);
      row.append(revoke);
      list.append(row);
    }
    this.element.append(summary, list);
    this.element.open = open;
  }
}
