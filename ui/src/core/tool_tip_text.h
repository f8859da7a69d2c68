// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Tool tips that wrap: Qt draws a plain-text tool tip on one line however long it is (the
/// Writers slider's was 975 px wide), and wraps a rich-text one at about 80 characters.
#include <QString>
#include <QTextDocument>

namespace throttlelab::ui {

/// Plain tips longer than this are given as rich text.
inline constexpr qsizetype kToolTipLineChars = 60;

/// `text` as a tool tip Qt wraps: plain text longer than a line as the same words in rich
/// text (line breaks kept); rich text and short tips as they are.
inline QString wrappingToolTip(const QString& text) {
  if (text.size() <= kToolTipLineChars || Qt::mightBeRichText(text)) return text;
  return QStringLiteral("<p>") + text.toHtmlEscaped().replace(QLatin1Char('\n'), "<br>") +
         QStringLiteral("</p>");
}

}  // namespace throttlelab::ui
